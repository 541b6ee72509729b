/**
 * Rollback: every file changed since a time (by one actor, if given) back to its state then, as one step
 * of the change log, undone by another rollback.
 */
import { checkActor, ROOT } from "@mem/core";
import { type ChangeLog, type LoggedChange, type RolledFile, timeOption } from "./change-log.js";
import { RedactedVersionError, type Versions } from "./versions.js";

/** What `HistoryStore.rollback` takes: `to` a time (and `by` an actor), or `undo` a rollback's id. */
export type RollbackOptions = (
  | {
      /** Back to the state at this time: ms since the epoch, a `Date` or an ISO 8601 string. */
      readonly to: number | Date | string;
      /** Only the files this actor changed since `to` (each back to its state at `to`). */
      readonly by?: string;
      readonly undo?: undefined;
    }
  | {
      /** The id of a rollback (its change in the log) to undo. */
      readonly undo: string;
      readonly to?: undefined;
      readonly by?: undefined;
    }
) & {
  /** The tenant to roll back (on a store with `scope`). */
  readonly tenant?: string;
  /** Who rolls back: the versions the rollback keeps, and its change in the log, carry it. */
  readonly actor?: string;
  /** Work out what would change, and change nothing. */
  readonly dryRun?: boolean;
};

/** What a rollback did (or, with `dryRun`, would do). */
export interface RollbackResult {
  /** The rollback's id in the change log (`rollback({ undo: id })`); absent when nothing changed or on a dry run. */
  readonly id?: string;
  /** Files given back an earlier content. */
  readonly restored: string[];
  /** Files removed, since they did not exist then. */
  readonly deleted: string[];
  /** Files whose earlier content is no longer kept (pruned by the history's bounds, or redacted): left as they are. */
  readonly skipped: string[];
}

/** What a rollback needs of its `HistoryStore`. */
export interface RollbackHost {
  readonly log: ChangeLog;
  readonly versions: Versions;
  /** The current bytes of `path`, `null` when there is no file. */
  current(path: string): Promise<Uint8Array | null>;
  /**
   * Makes `path` hold `data` (`null`: no file), keeping what it replaces as a version made by `rollback`
   * and `actor`; resolves with that version's id (`null`: there was no file), or `undefined` when
   * nothing changed.
   */
  set(path: string, data: Uint8Array | null, actor: string | undefined): Promise<string | null | undefined>;
}

/** The paths a change touched, each with the version holding its content before (`null`: absent). */
const touched = (change: LoggedChange): RolledFile[] => {
  if (change.command === "rollback") return [...(change.files ?? [])];
  const first = { path: change.path, before: change.version };
  return change.newPath !== undefined ? [first, { path: change.newPath, before: null }] : [first];
};

const same = (a: Uint8Array, b: Uint8Array): boolean =>
  a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);

/** The state to give back, per path, for `options` (see `RollbackOptions`). */
const planOf = async (host: RollbackHost, options: RollbackOptions): Promise<Map<string, string | null>> => {
  const plan = new Map<string, string | null>();
  if (options.undo !== undefined) {
    if (typeof options.undo !== "string") throw new TypeError("undo must be the id of a rollback");
    const undone = await host.log.read(options.undo);
    if (!undone || undone.command !== "rollback")
      throw new RangeError(`no rollback has the id ${options.undo}`);
    for (const file of undone.files ?? []) plan.set(file.path, file.before);
    return plan;
  }
  const to = timeOption(options.to, "to");
  if (to === undefined) throw new TypeError("rollback needs to (a time) or undo (a rollback's id)");
  checkActor(options.by, "by");
  const first = new Map<string, string | null>();
  const byActor = new Set<string>();
  let after: string | undefined;
  do {
    const page = await host.log.records({
      since: Math.floor(to) + 1,
      limit: 1000,
      ...(after ? { after } : {}),
    });
    for (const change of page.records) {
      for (const { path, before } of touched(change)) {
        if (!first.has(path)) first.set(path, before);
        if (options.by === undefined || change.actor === options.by) byActor.add(path);
      }
    }
    after = page.next;
  } while (after !== undefined);
  for (const path of [...byActor].sort()) plan.set(path, first.get(path)!);
  return plan;
};

/** See `HistoryStore.rollback`. */
export const rollback = async (host: RollbackHost, options: RollbackOptions): Promise<RollbackResult> => {
  if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
  checkActor(options.actor, "actor");
  const plan = await planOf(host, options);
  const restored: string[] = [];
  const deleted: string[] = [];
  const skipped: string[] = [];
  const files: RolledFile[] = [];
  for (const [path, version] of plan) {
    let target: Uint8Array | null = null;
    if (version !== null) {
      try {
        target = await host.versions.read(path, version);
      } catch (error) {
        if (!(error instanceof RedactedVersionError)) throw error;
      }
      if (target === null) {
        skipped.push(path);
        continue;
      }
    }
    const current = await host.current(path);
    if (target === null ? current === null : current !== null && same(current, target)) continue;
    if (options.dryRun === true) {
      (target === null ? deleted : restored).push(path);
      continue;
    }
    const before = await host.set(path, target, options.actor);
    if (before === undefined) continue;
    (target === null ? deleted : restored).push(path);
    files.push({ path, before });
  }
  if (options.dryRun === true || files.length === 0) return { restored, deleted, skipped };
  const id = await host.log.append({
    command: "rollback",
    path: ROOT,
    version: null,
    ...(options.actor !== undefined ? { actor: options.actor } : {}),
    files,
    ...(options.undo !== undefined ? { undo: options.undo } : { to: timeOption(options.to, "to")! }),
  });
  return { id, restored, deleted, skipped };
};
