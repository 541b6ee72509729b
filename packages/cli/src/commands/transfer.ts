/**
 * Writing a set of files into a store and its tenants, shared by `mem import` and `mem copy`: existing
 * files are never overwritten without `--overwrite` (identical ones count as already there, so a re-run
 * completes an interrupted one), every conflict is found before anything is written, and every file is
 * read back and compared afterwards. What the files are is travel.ts's definition.
 */
import { createHash } from "node:crypto";
import { ancestorsOf, type MemoryStore, ROOT } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { fileKey } from "../archive-check.js";
import { CommandError, type Context } from "../context.js";
import { sameBytes } from "../files.js";
import { type Progress, startProgress } from "../progress.js";
import { isBookkeepingPath } from "../travel.js";

/**
 * Where files go: the store opened unwrapped (its `.mem-history` files seen as they are) and its
 * tenants' scopes. A file that replaces another goes through `HistoryStore` when the store keeps
 * versions (or `history` asks for them), so the replaced content is kept; new files and the bookkeeping
 * that travels are written as they are, so restored versions stay exactly the versions that were.
 */
export class Destination {
  readonly #scopes = new Map<string, MemoryStore>();
  readonly #kept = new Map<string, Promise<MemoryStore>>();
  constructor(
    readonly root: MemoryStore,
    readonly history: boolean,
  ) {}

  /** The store of `tenant` (`undefined`: the root), unwrapped. */
  store(tenant: string | undefined): MemoryStore {
    if (tenant === undefined) return this.root;
    let scope = this.#scopes.get(tenant);
    if (!scope) {
      if (!this.root.scope) throw new CommandError("The target store has no tenants (it has no scope()).");
      scope = this.root.scope(tenant);
      this.#scopes.set(tenant, scope);
    }
    return scope;
  }

  /** The store to write `path` of `tenant` through when it replaces a file. */
  replacing(tenant: string | undefined, path: string): Promise<MemoryStore> {
    const store = this.store(tenant);
    if (isBookkeepingPath(path)) return Promise.resolve(store);
    const key = tenant ?? "";
    let kept = this.#kept.get(key);
    if (!kept) {
      kept = this.history
        ? Promise.resolve(new HistoryStore(store))
        : store
            .stat(`${ROOT}/.mem-history`)
            .then((stat) => (stat?.kind === "directory" ? new HistoryStore(store) : store));
      this.#kept.set(key, kept);
    }
    return kept;
  }
}

export interface Incoming {
  /** The tenant it belongs to; `undefined`: the store itself. */
  tenant?: string;
  path: string;
  size: number;
  /** sha256 of the bytes, hex, when known; otherwise `read` gives the bytes to compare. */
  digest?: string;
  /** The bytes; `null` when the file vanished from the source. */
  read?(): Promise<Uint8Array | null>;
}

export interface TransferResult {
  /** Files written now. */
  files: number;
  bytes: number;
  /** Files that were already there with the same bytes. */
  unchanged: number;
  /** Files verified after writing (written and unchanged). */
  verified: number;
}

const digest = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

const listed = (paths: readonly string[]): string =>
  `${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ` and ${paths.length - 5} more` : ""}`;

/**
 * Writes `contents` (the files of `incoming`, in any order, one at a time) into `target`. Before the
 * first write, every conflict is found: a directory where a file goes, a file where a directory is
 * needed, a file with other content (unless `overwrite`).
 */
export const transfer = async (
  ctx: Context,
  label: string,
  target: Destination,
  incoming: readonly Incoming[],
  contents: AsyncIterable<{ tenant?: string; path: string; data: Uint8Array }>,
  options: { overwrite: boolean; json: boolean },
): Promise<TransferResult> => {
  const shown = (tenant: string | undefined, path: string) =>
    tenant === undefined ? path : `${path} (tenant ${tenant})`;
  // Pass 1: find conflicts before writing anything.
  const blocked: string[] = []; // never resolved by --overwrite
  const differing: string[] = [];
  const existing = new Map<string, string | null>(); // fileKey → version of a different existing file, null if same
  const directories = new Map<string, { tenant: string | undefined; dir: string }>();
  for (const file of incoming)
    for (const dir of ancestorsOf(file.path))
      if (dir !== ROOT) directories.set(fileKey(file.tenant, dir), { tenant: file.tenant, dir });
  for (const key of [...directories.keys()].sort()) {
    const { tenant, dir } = directories.get(key)!;
    if ((await target.store(tenant).stat(dir))?.kind === "file")
      blocked.push(`${shown(tenant, dir)} (a file where a directory is needed)`);
  }
  for (const file of incoming) {
    const store = target.store(file.tenant);
    const stat = await store.stat(file.path);
    if (!stat) continue;
    if (stat.kind === "directory") {
      blocked.push(`${shown(file.tenant, file.path)} (a directory where a file goes)`);
      continue;
    }
    const current = await store.read(file.path);
    const key = fileKey(file.tenant, file.path);
    if (current && stat.size === file.size && (await sameAs(current.data, file))) {
      existing.set(key, null);
      continue;
    }
    if (!options.overwrite) differing.push(shown(file.tenant, file.path));
    else if (current) existing.set(key, current.version);
  }
  if (blocked.length > 0) {
    throw new CommandError(
      `Nothing was written: ${plural(blocked.length, "path is", "paths are")} taken by the other kind of entry: ${listed(blocked)}.`,
    );
  }
  if (differing.length > 0) {
    throw new CommandError(
      `Nothing was written: ${plural(differing.length, "file already exists", "files already exist")} with other content (${listed(differing)}). Pass --overwrite to replace ${differing.length === 1 ? "it" : "them"}.`,
    );
  }

  // Pass 2: write.
  const result: TransferResult = { files: 0, bytes: 0, unchanged: 0, verified: 0 };
  const written = new Map<string, { tenant: string | undefined; path: string; digest: string }>();
  const progress: Progress = startProgress(ctx, label, incoming.length, options.json);
  try {
    for await (const file of contents) {
      const { data, tenant, path } = file;
      const key = fileKey(tenant, path);
      written.set(key, { tenant, path, digest: digest(data) });
      const version = existing.get(key);
      if (version === null) {
        result.unchanged++;
      } else {
        if (version === undefined) await target.store(tenant).write(path, data, { ifAbsent: true });
        else await (await target.replacing(tenant, path)).write(path, data, { ifVersion: version });
        result.files++;
        result.bytes += data.byteLength;
      }
      progress.tick(data.byteLength);
    }
  } finally {
    progress.stop();
  }

  // Pass 3: read everything back.
  const mismatched: string[] = [];
  for (const { tenant, path, digest: expected } of written.values()) {
    const file = await target.store(tenant).read(path);
    if (!file || digest(file.data) !== expected) mismatched.push(shown(tenant, path));
    else result.verified++;
  }
  if (mismatched.length > 0) {
    throw new CommandError(
      `Verification failed: ${mismatched.length} file(s) differ from the source after writing: ${mismatched.slice(0, 5).join(", ")}.`,
    );
  }
  return result;
};

/** Whether `mine` holds the bytes of `file`, by digest when it has one. */
const sameAs = async (mine: Uint8Array, file: Incoming): Promise<boolean> => {
  if (file.digest !== undefined) return digest(mine) === file.digest;
  const theirs = (await file.read?.()) ?? null;
  return theirs !== null && sameBytes(mine, theirs);
};
