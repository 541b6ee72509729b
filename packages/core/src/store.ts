import type { ChangeContext } from "./actor.js";

/**
 * The storage contract every backend implements. Paths are canonical memory paths (`/memories` or
 * `/memories/a/b`) that core has already validated; contents are raw bytes. Stores never format tool
 * output, and they report problems only through the typed errors of `errors.ts`.
 */

/** An opaque token that changes whenever a file's content changes. */
export type Version = string;

/**
 * A file's bytes and version. Callers treat `data` as read-only: a store may hand out its own buffer, or
 * derive `version` from `data` only when it is first asked for.
 */
export interface FileData {
  data: Uint8Array;
  version: Version;
}

export type Stat = { kind: "file"; size: number } | { kind: "directory" };

/**
 * One entry of a listing. `depth` is 1 for children of the listed directory, 2 for grandchildren.
 * `size` is the byte size for a file; for a directory, the total size of all *listed* files beneath it
 * at any depth (files under a hidden or `node_modules` name are left out, see `isListedName`).
 * A directory with a listed name is an entry even when all it holds is hidden (its size is then 0).
 */
export interface ListEntry {
  path: string;
  kind: "file" | "directory";
  size: number;
  depth: number;
  /**
   * For a directory, optional: how many listed files are beneath it at any depth (the files its `size`
   * adds up), given when `ListOptions.countFiles` asked for it and the store keeps the counts. Lets a
   * wrapper that changes every file's size (the encrypted store) correct directory sizes without
   * listing deeper.
   */
  files?: number;
}

export interface Listing {
  /** The listed directory's own size, by the same rule as directory entries. */
  size: number;
  /** Listed entries up to the requested depth, in any order; core sorts them. */
  entries: ListEntry[];
  /** Optional: how many listed files are beneath the directory at any depth (see `ListEntry.files`). */
  files?: number;
  /**
   * Set by a store that honoured `ListOptions.limit`: how many entries within the requested depth it left
   * out. `entries` then holds exactly the first `limit` entries in view's order (depth-first, siblings
   * by UTF-16 code units, see `compareNames`), or all of them when there are no more.
   */
  omitted?: number;
}

/** Hints for `list`; a store may ignore them and return every entry. */
export interface ListOptions {
  /**
   * The caller shows only the first `limit` entries in view's order: a store that can find them without
   * visiting the rest may return just those and count the others in `Listing.omitted`.
   */
  limit?: number;
  /** Asks for `files` on the listing and its directory entries, from stores that keep the counts. */
  countFiles?: boolean;
}

/** What `readOrList` found: a file's bytes, or a directory's listing. */
export type FileOrListing = { kind: "file"; file: FileData } | { kind: "directory"; listing: Listing };

/**
 * What `readLines` found: a UTF-8 text file's size and line count, and the text of a window of its lines.
 */
export interface LineWindow {
  /** The file's size in bytes. */
  size: number;
  /** Lines in the file, by SPEC §1's model (`"a\nb\n"` and `"a\nb"` have 2, `""` has 0). */
  lines: number;
  /**
   * Lines `from` to `min(through, lines)` joined by `\n`, without the `\n` that ends the last one; `""`
   * when `from` is past the last line.
   */
  text: string;
}

export type WriteCondition = { ifAbsent: true } | { ifVersion: Version };

/**
 * The quotas `writeWithinQuota` checks: core's `maxFiles` and `maxTotalBytes` (see `QuotaOptions`), at least
 * one of them set.
 */
export interface WriteQuota {
  maxFiles?: number;
  maxTotalBytes?: number;
}

/** A store's (or a scope's) totals: every file, hidden ones included, measured without reading contents. */
export interface Usage {
  files: number;
  bytes: number;
  /**
   * Bytes a wrapper that keeps earlier versions (`@mem/history`) holds beside the files: the versions
   * and their bookkeeping. Left out of `files` and `bytes`, so quotas never count it (history has its own
   * bound); absent from stores that keep no history.
   */
  historyBytes?: number;
}

/** One file of `files()`: its canonical path and byte size. */
export interface StoredFile {
  path: string;
  size: number;
}

/** What `sweep()` reclaimed: the expired files it removed, by canonical path, and their total size. */
export interface SweepResult {
  paths: string[];
  bytes: number;
}

/**
 * The expiry options every built-in store accepts (SPEC §7). A file not accessed for longer than
 * `expireAfterSeconds` behaves as missing at once; `sweep()` reclaims its storage. Access: `read`, `write`,
 * `update` and `rename` (of the file or an ancestor) refresh it; `stat` and `list` do not.
 */
export interface ExpiryOptions {
  /** Seconds without access after which a file is gone. Unset: files never expire. */
  expireAfterSeconds?: number;
  /** The time in milliseconds since the epoch; inject a fake clock in tests. Default `Date.now`. */
  clock?: () => number;
}

/**
 * One tenant of `tenants()`: its id, and what the store keeps about it when it keeps it cheaply (files and
 * bytes held, hidden files included; the newest access in milliseconds since the epoch).
 */
export interface TenantInfo {
  readonly id: string;
  readonly files?: number;
  readonly bytes?: number;
  /** ms since epoch */
  readonly lastAccess?: number;
}

/** One page of `tenants()`. */
export interface TenantPage {
  readonly tenants: readonly TenantInfo[];
  /** pass as `after` for the next page; absent on the last page */
  readonly next?: string;
}

/** Options of `tenants()`: the page starts after `after` (byte order of ids) and holds at most `limit`. */
export interface TenantsOptions {
  after?: string;
  limit?: number;
}

/** What `purge()` removed (or, with `dryRun`, would remove): live files, their bytes, history versions. */
export interface PurgeResult {
  readonly files: number;
  readonly bytes: number;
  readonly versions?: number;
}

/** Options of `purge()`: `dryRun` counts what would go and removes nothing. */
export interface PurgeOptions {
  dryRun?: boolean;
}

/**
 * Limits a store puts on paths beyond SPEC §2's own (a hosted store's depth, the characters it cannot
 * hold in a name). The validator checks them last, before any storage call.
 */
export interface PathLimits {
  /** The most names a path may have below `/memories` (`/memories/a/b` has 2). */
  readonly maxDepth?: number;
  /** True when `name` (NFC) holds a character the store cannot store. */
  readonly refusesName?: (name: string) => boolean;
}

/**
 * What `search()` is asked (SPEC §9): the files at or beneath `path` that may hold a line matching the
 * query. Core matches the lines itself, so a store only narrows: it may return more files than match,
 * never fewer.
 */
export interface SearchRequest {
  /** The canonical directory or file searched. */
  readonly path: string;
  readonly query: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  /**
   * For a literal query, the query in index form (`searchIndexForm`): every matching line, in index form,
   * contains it. Absent for a regular expression.
   */
  readonly needle?: string;
}

/** A file `search()` found: its canonical path and its bytes, read in the same step as the index. */
export interface SearchFile {
  path: string;
  data: Uint8Array;
}

export interface StoreCapabilities {
  /** Conditional writes hold across processes and machines, not only within this process. */
  readonly crossProcessSafe: boolean;
  /** Renaming a directory is one atomic step (otherwise it is copy-then-delete and resumable). */
  readonly atomicDirectoryRename: boolean;
  /**
   * Optional: `stat` costs no network round trip (a local file system). Core then stats a file before a
   * view reads it, so that a file over `maxFileBytes` (or an image over `maxImageBytes`) is refused
   * without being loaded. A wrapper that changes sizes must not pass it on.
   */
  readonly localStat?: boolean;
}

/**
 * A storage backend for the memory tool.
 *
 * @example
 * ```ts
 * import { executeCommand, InMemoryStore } from "@mem/core";
 * const store = new InMemoryStore();
 * await executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "hi\n" });
 * ```
 */
export interface MemoryStore {
  /** Optional: what the store promises beyond the contract; a store without it promises none of them. */
  readonly capabilities?: StoreCapabilities | undefined;

  /** Optional: the medium's name for traces and metrics (`fs`, `redis`, `postgres`, `s3`, `memory`…). */
  readonly backend?: string | undefined;

  /** The file's bytes and version; `null` when nothing is there or the path is a directory. */
  read(path: string): Promise<FileData | null>;

  /** What is at `path`; `null` when nothing. `/memories` is always a directory. */
  stat(path: string): Promise<Stat | null>;

  /**
   * The listing of directory `dir` to `depth` levels; `null` when `dir` is not a directory (missing, or a
   * file). `/memories` is always a directory.
   * Hidden names (starting with `.`) and `node_modules` are left out with everything beneath them.
   */
  list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null>;

  /**
   * Optional: `read(path)` when a file is there, otherwise `list(path, depth, options)`, in one backend
   * request where the medium allows (view then costs one request whatever the path holds). `null` when
   * nothing is there. Stores without it get `read`, then `list`.
   */
  readOrList?(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null>;

  /**
   * Optional: lines `from` to `through` (1-based, inclusive; `through` may pass the last line) of the file
   * at `path`, found where the file lives so that only the window travels: view with `view_range` uses it
   * for any path not named like an image. `null` when no file is there (a directory, or nothing);
   * `undefined` when the store cannot answer for this file (not UTF-8 text, say), and view then reads the
   * whole file. It must answer as reading the whole file would, and is not forwarded by wrappers (a
   * wrapper that changes the bytes it stores would hand out the inner store's view of them).
   */
  readLines?(path: string, from: number, through: number): Promise<LineWindow | null | undefined>;

  /**
   * Writes a file, creating missing parent directories.
   * - `{ ifAbsent: true }`: fails with `AlreadyExistsError` if a file or directory is at `path`.
   * - `{ ifVersion }`: fails with `ConflictError` unless the file exists with exactly that version.
   * Fails with `NotADirectoryError` when an ancestor is a file. Atomic: readers see old or new bytes.
   * `context` (here and on `update`, `delete`, `rename`) says which command, and which actor, asked.
   */
  write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    context?: ChangeContext,
  ): Promise<{ version: Version }>;

  /** Deletes a file or a directory with everything beneath it. `false` when nothing was there. */
  delete(path: string, context?: ChangeContext): Promise<boolean>;

  /**
   * Moves a file or directory. Never overwrites. Checks in this order: `NotFoundError` when `from` does
   * not exist, `AlreadyExistsError` when `to` exists, `NotADirectoryError` when an ancestor of `to` is a
   * file. Core never asks to move a path into itself.
   */
  rename(from: string, to: string, context?: ChangeContext): Promise<void>;

  /**
   * Optional: `write`, refused with `QuotaExceededError` when it would break `quota`, checked in the same
   * atomic step as the write and serialised with every other write of this store (or scope), so that any
   * number of concurrent writers never overshoot it. The write's own errors come first (the same as
   * `write`'s); then, with `files` and `bytes` what `usage()` would return just before the write (carried
   * by the error), `exceedsQuota` decides: a create (`ifAbsent`) is refused when `files + 1 > maxFiles` or
   * `bytes + size > maxTotalBytes`; a replacement (`ifVersion`) only when it grows the file and
   * `bytes - old + size > maxTotalBytes`. Core uses it for every write under a quota when present; stores
   * without it get core's check of `usage()` just before `write`, which concurrent writers can overshoot.
   * A wrapper that changes what is written (sizes, extra files) must not forward it.
   */
  writeWithinQuota?(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }>;

  /**
   * Optional native atomic edit: reads the file at `path`, passes its bytes to `change`, and stores what
   * `change` returns (nothing when it returns `null`), with no other write to the file in between.
   * Resolves `false`, without calling `change`, when no file is at `path`. `change` is synchronous and
   * pure. Stores without it get core's read → conditional write loop with retries.
   */
  update?(
    path: string,
    change: (current: Uint8Array) => Uint8Array | null,
    context?: ChangeContext,
  ): Promise<boolean>;

  /** Optional: limits on paths the store cannot go beyond; the path validator refuses such paths (SPEC §2). */
  readonly pathLimits?: PathLimits | undefined;

  /**
   * Optional: the largest file the store can hold, in bytes. Core then uses it as `maxFileBytes` when it
   * is below the application's (SPEC §4's size error names it), so a write over it is refused before any
   * storage call.
   */
  readonly maxFileBytes?: number | undefined;

  /** Names this store keeps for its own bookkeeping; the path validator refuses them to users. */
  isReservedName?(name: string): boolean;

  /**
   * A store confined to `tenant` (SPEC §7): a complete `/memories` of its own in the medium's namespace,
   * sharing this store's connections, clients and locks. Throws `TypeError` for an invalid tenant id
   * (see `checkTenant`). Closing a scope does not close its parent.
   */
  scope?(tenant: string): MemoryStore;

  /** Files and bytes held (hidden files included), without reading contents. Core uses it for quotas. */
  usage?(): Promise<Usage>;

  /** Removes expired files (see `ExpiryOptions`) and reports what it removed. */
  sweep?(): Promise<SweepResult>;

  /**
   * Every file the store holds, in any order: hidden and `node_modules` files included (unlike `list`),
   * the store's own bookkeeping (its reserved names) left out. For tools that back up or copy a whole
   * store; sizes are what `read` would return.
   */
  files?(): Promise<StoredFile[]>;

  /**
   * Optional: the direct tenants of this store (its `scope(id)` children that hold anything), in byte
   * order of id, one page at a time: `after` is the `next` of the previous page, `limit` (default 100,
   * at most 1000) the page size. A page costs requests in proportion to its size, not to the number of
   * tenants. `files`, `bytes` and `lastAccess` are given when the store keeps them.
   */
  tenants?(options?: TenantsOptions): Promise<TenantPage>;

  /**
   * Optional, only on a scoped store (a `TypeError` otherwise): removes every byte the tenant has on the
   * medium (files, hidden files, bookkeeping, history, indexes, counters) and its nested tenants.
   * Idempotent and resumable: run again after an interruption, it completes. Everything written before
   * the call is gone when it resolves. A tenant that holds nothing: success, 0 removed.
   */
  purge?(options?: PurgeOptions): Promise<PurgeResult>;

  /**
   * Optional: the files that may match a search, found through the store's own index (see
   * `SearchRequest`), in any order, or `null` when the index cannot narrow this query (core then reads
   * the files itself, within its budget). Hidden, `node_modules` and reserved files may be left out.
   */
  search?(request: SearchRequest): Promise<SearchFile[] | null>;

  /** Fails fast when the store cannot work (missing bucket, unreachable server, wrong key). */
  check?(): Promise<void>;

  /** Releases connections or handles the store owns. */
  close?(): Promise<void>;
}
