/**
 * The change log of a `HistoryStore`: one record per change that committed (creates and deletes too,
 * restores, and each rollback as one step), below the history's base in `log/`, named by a time-ordered
 * id, so a page of changes is one listing and one read per change shown.
 */
import { checkActor, isSameOrInside, type MemoryStore } from "@mem/core";
import { newVersionId, timeOfVersionId } from "./layout.js";

/** The directory of the log, below the history's base. */
export const LOG_DIR = "log";
/** Log records are named `c-{id}`: never a version id, so the version bounds leave them alone. */
const RECORD_PREFIX = "c-";
const DEFAULT_LIMIT = 100;
/** Records kept at most: older ones go first. */
export const MAX_CHANGES = 10_000;
/** The log is pruned after every this many records appended by one instance. */
const PRUNE_EVERY = 64;
const MAX_LIMIT = 1000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One change of the log, as `HistoryStore.changes` lists it. */
export interface Change {
  /** The change's id: time-ordered, unique; `after` of the next page, `undo` of a rollback. */
  readonly id: string;
  /** When it was applied, in milliseconds since the epoch. */
  readonly time: number;
  /** Who made it (`ExecuteOptions.actor`, `--actor`); `null` when nobody was named. */
  readonly actor: string | null;
  /**
   * The tool command (`create`, `str_replace`, `insert`, `delete`, `rename`), `edit` for a write made
   * outside the tool, `restore` for `restore()`, `rollback` for one `rollback()` (path `/memories`).
   */
  readonly command: string;
  /** The file's path (for `rename`, its old path). A directory's delete or rename gives one change per file. */
  readonly path: string;
  /** `rename` only: the file's new path. */
  readonly newPath?: string;
  /** The version that holds the content before the change; `null` when there was none (create, rollback). */
  readonly version: string | null;
}

/** A page of the change log, oldest first; `next` (when more may follow) is the `after` of the next page. */
export interface ChangePage {
  readonly changes: Change[];
  readonly next?: string;
}

/** What `HistoryStore.changes` takes. Times are ms since the epoch, `Date`s or ISO 8601 strings. */
export interface ChangesOptions {
  /** Changes at or after this time. */
  readonly since?: number | Date | string;
  /** Changes at or before this time. */
  readonly until?: number | Date | string;
  /** The changes of this tenant (on a store with `scope`). */
  readonly tenant?: string;
  /** Only the changes of this actor. */
  readonly by?: string;
  /** Only the changes of this path or of files below it (a rename's old or new path). */
  readonly path?: string;
  /** The changes after this id (the `next` of the previous page). */
  readonly after?: string;
  /** Changes on one page, at most 1000. Default 100. */
  readonly limit?: number;
}

/** One file a rollback changed and the version that holds its content before (`null`: it was absent). */
export interface RolledFile {
  readonly path: string;
  readonly before: string | null;
}

/** A change with everything its record holds (a rollback's details too). */
export type LoggedChange = Change & Omit<ChangeRecord, "actor" | "version">;

/** What the log keeps of a change: the `Change` without id and time, and a rollback's details. */
export interface ChangeRecord {
  readonly command: string;
  readonly path: string;
  readonly newPath?: string;
  readonly version: string | null;
  readonly actor?: string;
  /** `rollback` only: what it changed, so `rollback({ undo })` can put it back. */
  readonly files?: readonly RolledFile[];
  /** `rollback` only: the time it rolled back to, or the rollback it undid. */
  readonly to?: number;
  readonly undo?: string;
}

/** A time option as ms since the epoch; a `TypeError` naming it when it is not a time. */
export const timeOption = (value: unknown, name: string): number | undefined => {
  if (value === undefined) return undefined;
  const ms =
    typeof value === "number"
      ? value
      : value instanceof Date
        ? value.getTime()
        : typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value)
          ? Date.parse(value)
          : Number.NaN;
  if (!Number.isFinite(ms))
    throw new TypeError(`${name} must be a time: ms since the epoch, a Date or an ISO 8601 string`);
  return ms;
};

const checkLimit = (limit: unknown): number => {
  if (limit === undefined) return DEFAULT_LIMIT;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new TypeError(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  }
  return limit;
};

const touches = (record: LoggedChange, path: string): boolean =>
  isSameOrInside(record.path, path) ||
  (record.newPath !== undefined && isSameOrInside(record.newPath, path)) ||
  (record.files ?? []).some((f) => isSameOrInside(f.path, path));

/** The change log of one store (one scope). */
export class ChangeLog {
  readonly #history: MemoryStore;
  readonly #dir: string;
  readonly #clock: () => number;
  readonly #maxAgeMs: number;
  #appended = 0;

  constructor(history: MemoryStore, base: string, clock: () => number, maxAgeMs: number) {
    this.#history = history;
    this.#dir = `${base}/${LOG_DIR}`;
    this.#clock = clock;
    this.#maxAgeMs = maxAgeMs;
  }

  /** Appends `record`; resolves with its id. */
  async append(record: ChangeRecord): Promise<string> {
    const id = newVersionId(this.#clock());
    await this.#history.write(`${this.#dir}/${RECORD_PREFIX}${id}`, encoder.encode(JSON.stringify(record)), {
      ifAbsent: true,
    });
    this.#appended = (this.#appended + 1) % PRUNE_EVERY;
    if (this.#appended === 0) await this.prune();
    return id;
  }

  /** The record of change `id`, or `null`. */
  async read(id: string): Promise<LoggedChange | null> {
    if (timeOfVersionId(id) === null) return null;
    const file = await this.#history.read(`${this.#dir}/${RECORD_PREFIX}${id}`);
    return file ? this.#parse(id, file.data) : null;
  }

  /** A page of changes (see `ChangesOptions`; `tenant` is the store's to apply). */
  async page(options: ChangesOptions = {}): Promise<ChangePage> {
    const { records, next } = await this.records(options);
    return {
      changes: records.map(({ id, time, actor, command, path, newPath, version }) => ({
        id,
        time,
        actor,
        command,
        path,
        ...(newPath !== undefined ? { newPath } : {}),
        version,
      })),
      ...(next !== undefined ? { next } : {}),
    };
  }

  /** Like `page`, with each change's whole record. */
  async records(options: ChangesOptions = {}): Promise<{ records: LoggedChange[]; next?: string }> {
    if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
    const since = Math.max(timeOption(options.since, "since") ?? 0, this.#clock() - this.#maxAgeMs);
    const until = timeOption(options.until, "until") ?? Number.POSITIVE_INFINITY;
    checkActor(options.by, "by");
    if (options.path !== undefined && typeof options.path !== "string")
      throw new TypeError("path must be a string");
    if (options.after !== undefined && typeof options.after !== "string")
      throw new TypeError("after must be a string");
    const limit = checkLimit(options.limit);
    const listing = await this.#history.list(this.#dir, 1);
    const ids = (listing?.entries ?? [])
      .map((e) => e.path.slice(e.path.lastIndexOf("/") + 1))
      .filter((name) => name.startsWith(RECORD_PREFIX))
      .map((name) => name.slice(RECORD_PREFIX.length))
      .filter((id) => {
        const time = timeOfVersionId(id);
        return (
          time !== null &&
          time >= since &&
          time <= until &&
          (options.after === undefined || id > options.after)
        );
      })
      .sort();
    const records: LoggedChange[] = [];
    for (const [i, id] of ids.entries()) {
      if (records.length === limit) return { records, next: ids[i - 1]! };
      const record = await this.read(id);
      if (!record) continue;
      if (options.by !== undefined && record.actor !== options.by) continue;
      if (options.path !== undefined && !touches(record, options.path)) continue;
      records.push(record);
    }
    return { records };
  }

  /** Removes the records older than the age bound, and the oldest beyond `MAX_CHANGES`. */
  async prune(): Promise<void> {
    const oldest = this.#clock() - this.#maxAgeMs;
    const listing = await this.#history.list(this.#dir, 1);
    const names = (listing?.entries ?? [])
      .map((e) => e.path.slice(e.path.lastIndexOf("/") + 1))
      .filter((name) => name.startsWith(RECORD_PREFIX))
      .sort();
    for (const [i, name] of names.entries()) {
      const time = timeOfVersionId(name.slice(RECORD_PREFIX.length));
      if (time === null) continue;
      if (time < oldest || names.length - i > MAX_CHANGES) await this.#history.delete(`${this.#dir}/${name}`);
    }
  }

  #parse(id: string, data: Uint8Array): LoggedChange | null {
    try {
      const record = JSON.parse(decoder.decode(data)) as ChangeRecord;
      if (typeof record.command !== "string" || typeof record.path !== "string") return null;
      return {
        ...record,
        id,
        time: timeOfVersionId(id)!,
        actor: typeof record.actor === "string" ? record.actor : null,
        version: typeof record.version === "string" ? record.version : null,
      };
    } catch {
      return null;
    }
  }
}
