import { accessSync, closeSync, constants, lstatSync, mkdirSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import {
  AlreadyExistsError,
  type BytesChange,
  checkOptions,
  checkTenant,
  ErasingError,
  type Expiry,
  type ExpiryOptions,
  expiryOf,
  type FileData,
  type FileOrListing,
  type Listing,
  type ListOptions,
  listingFromFilesInSlices,
  type MemoryStore,
  type PurgeOptions,
  type PurgeResult,
  purgeOptions,
  ROOT,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  StoreFailureError,
  type SweepResult,
  segmentsOf,
  type TenantPage,
  type TenantsOptions,
  tenantPageOptions,
  type Usage,
  unscopedPurgeError,
  type Version,
  type WriteCondition,
  type WriteQuota,
} from "@mem/core";
import { descend } from "./descend.js";
import {
  createRoot,
  Dir,
  descriptorPathsWork,
  ensureDirectory,
  type Resolution,
  releaseDescent,
} from "./dir.js";
import { errnoOf, isRefusal, specialFileRefused, symlinkRefused, toStoreFailure } from "./failure.js";
import { isFenced, raiseFence } from "./fence.js";
import { holdsLiveFile, removeExpired, usageOf } from "./files.js";
import { type Claim, submit, submitEdit } from "./group.js";
import { openEntry, readFileIn, readOpenFile, writeAtomically } from "./io.js";
import { acquire, type LockTiming, release } from "./lock.js";
import { renameIn } from "./move.js";
import { isReservedName, TENANTS_DIR } from "./names.js";
import { removeCrashLeftovers } from "./recovery.js";
import { deleteIn } from "./remove.js";
import { listTenants, purgeTenant } from "./tenants.js";
import { HeldTotals, holdingTotals, readTotals, totalsOf, totalsWanted, wantTotals } from "./totals.js";
import { collectAllFiles, collectFiles, type Live, withChild } from "./walk.js";
import { writeIn } from "./write.js";

export interface FsStoreOptions extends ExpiryOptions {
  /** The directory that holds `/memories`. Created (mode 0700, with missing parents) if absent. */
  root: string;
  /** How long a command waits for another process's lock before failing. Default 10 000 ms. */
  lockTimeoutMs?: number;
  /**
   * Age after which a lock whose holder cannot be checked (held from another host, or unreadable) is
   * treated as abandoned. Holders on this host are checked directly and never expire. Default 30 000 ms.
   */
  lockStaleMs?: number;
  /**
   * How paths inside the root reach the kernel. `"auto"` (default) pins every call to an open directory
   * descriptor where the platform allows it (Linux `/proc/self/fd`) and uses checked absolute paths
   * elsewhere. `"path"` forces the latter.
   */
  resolution?: "auto" | "path";
}

/** What a scope takes over from its parent instead of probing again. */
const INHERITED = Symbol("inherited");
type ScopeOptions = FsStoreOptions & { [INHERITED]?: Resolution };

/** The fence check of a store that is no scope: nothing erases it from under its own caller. */
const NEVER_FENCED = (): boolean => false;

/**
 * A {@link MemoryStore} over a local directory: `root` is `/memories`, `/memories/a/b.md` is
 * `{root}/a/b.md`.
 *
 * - Writes are atomic and durable: a temporary file in the same directory is written, synced and
 *   renamed over the target, then the directory is synced.
 * - Symbolic links inside the root are never followed, at any component; meeting one where a file or
 *   directory is needed fails with "symbolic link not followed". Listings skip links; deleting removes
 *   the link itself, never its target.
 * - Files are created 0600 and directories 0700 whatever the umask.
 * - Writes, deletes and renames take a lock file that holds across processes, with recovery from
 *   holders that died; conditional writes therefore hold across processes sharing the root.
 *
 * @example
 * ```ts
 * import { executeCommand } from "@mem/core";
 * import { FsStore } from "@mem/fs";
 *
 * const store = new FsStore({ root: "./memories" });
 * await executeCommand(store, { command: "create", path: "/memories/notes.md", file_text: "# Notes\n" });
 * ```
 */
export class FsStore implements MemoryStore {
  readonly backend = "fs";
  readonly capabilities: StoreCapabilities = {
    crossProcessSafe: true,
    atomicDirectoryRename: true,
    localStat: true,
  };
  /** The real (link-free) absolute path of the root directory. */
  readonly root: string;
  readonly #resolution: Resolution;
  readonly #timing: LockTiming;
  readonly #options: FsStoreOptions;
  readonly #expiry: Expiry | null;

  constructor(options: FsStoreOptions) {
    if (process.platform === "win32")
      throw new Error("@mem/fs needs a POSIX file system (Linux, macOS, BSD)");
    const o = checkOptions("FsStore", options);
    o.string("root", { nonEmpty: true });
    o.integer("lockTimeoutMs", { optional: true, min: 0 });
    o.integer("lockStaleMs", { optional: true, min: 1 });
    o.oneOf("resolution", ["auto", "path"], { optional: true });
    const requested = resolve(options.root);
    const notADirectory =
      'FsStore: option "root" must name a directory (or where one can be created), not a file';
    try {
      createRoot(requested);
    } catch (error) {
      if (errnoOf(error) === "EEXIST" || errnoOf(error) === "ENOTDIR") throw new TypeError(notADirectory);
      throw error;
    }
    // Links in the root's own path are the operator's choice and are resolved once, here.
    this.root = realpathSync(requested);
    if (!lstatSync(this.root).isDirectory()) throw new TypeError(notADirectory);
    const inherited = (options as ScopeOptions)[INHERITED];
    this.#resolution =
      inherited ?? (options.resolution !== "path" && descriptorPathsWork(this.root) ? "descriptor" : "path");
    this.#timing = { timeoutMs: options.lockTimeoutMs ?? 10_000, staleMs: options.lockStaleMs ?? 30_000 };
    this.#expiry = expiryOf(options);
    this.#options = { ...options };
  }

  /**
   * The store of `tenant`: the directory `{root}/.~mem-tenants/{tenant}` (made on first use), with this
   * store's options. It opens nothing until a command runs, and takes its own cross-process lock, so
   * tenants never wait for each other. Throws `TypeError` for an invalid tenant id.
   */
  scope(tenant: string): FsStore {
    checkTenant(tenant);
    const tenants = join(this.root, TENANTS_DIR);
    ensureDirectory(tenants);
    const root = join(tenants, tenant);
    ensureDirectory(root);
    const options: ScopeOptions = { ...this.#options, root, [INHERITED]: this.#resolution };
    return new FsStore(options);
  }

  /**
   * The tenants of this root that hold a file, in byte order of id, with their files, bytes and newest
   * access, expired files counted until reclaimed (see tenants.ts): one `readdir` of the tenants
   * directory, a metadata walk per listed tenant.
   */
  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    const { after, limit } = tenantPageOptions(options);
    try {
      return await listTenants(this.root, this.#resolution, after, limit);
    } catch (error) {
      throw toStoreFailure(error);
    }
  }

  /**
   * On a scope only (a `TypeError` otherwise): erases the tenant's directory with everything in it, its
   * nested tenants and the store's bookkeeping included. The scope stays usable (empty) afterwards.
   */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    const { dryRun } = purgeOptions(options);
    if ((this.#options as ScopeOptions)[INHERITED] === undefined) throw unscopedPurgeError();
    try {
      if (!dryRun && lstatSync(this.root, { throwIfNoEntry: false })?.isDirectory()) {
        // The fence first, then one turn of the tenant's lock: the changes holding it finish before the
        // erasure, and those that take it later find the fence.
        raiseFence(dirname(this.root), basename(this.root));
        await this.#withRoot(async (root) => release(root, await acquire(root, this.#timing)));
      }
      return await purgeTenant(dirname(this.root), basename(this.root), this.#resolution, dryRun);
    } catch (error) {
      throw toStoreFailure(error);
    }
  }

  /**
   * Files and bytes beneath the root (hidden files included, tenants and bookkeeping not): the totals
   * every change keeps under the lock (one small file read), or, when they cannot be trusted (see
   * totals.ts) or files expire, a walk over the files' metadata.
   */
  async usage(): Promise<Usage> {
    return this.#withRoot(async (root) => {
      if (this.#expiry) return usageOf(root, this.#expiry);
      const kept = readTotals(root);
      if (kept) return { files: kept.files, bytes: kept.bytes };
      // Counted this once; the next change of the root counts under the lock and keeps the totals.
      wantTotals(this.root);
      return usageOf(root, this.#expiry);
    });
  }

  async sweep(): Promise<SweepResult> {
    const expiry = this.#expiry;
    if (!expiry) return { paths: [], bytes: 0 };
    return this.#mutate(async (root) => {
      const removed = await removeExpired(root, ROOT, expiry);
      await root.sync();
      return removed;
    });
  }

  /** A file counts while it has not expired; `undefined` when files never expire. */
  #live(): Live | undefined {
    const expiry = this.#expiry;
    if (!expiry) return undefined;
    const now = expiry.now();
    return (stats) => !expiry.isExpired(stats.mtimeMs, now);
  }

  /**
   * Fails fast with `StoreFailureError` when the root is gone, is no longer a directory, or this process
   * may not write in it.
   */
  async check(): Promise<void> {
    await this.#withRoot(async () => {
      try {
        accessSync(this.root, constants.W_OK | constants.X_OK);
      } catch (error) {
        throw toStoreFailure(error);
      }
    });
  }

  /** Names of the store's temporary and lock files (all start with `.~mem-`). */
  isReservedName(name: string): boolean {
    return isReservedName(name);
  }

  async read(path: string): Promise<FileData | null> {
    if (path === ROOT) return null;
    return this.#inParent(path, (parent, name) => readFileIn(parent, name, this.#expiry));
  }

  /**
   * Runs `task` in the parent directory of `path` (not `/memories`), opened without creating or
   * following anything; `null` when a directory on the way is missing or a file.
   */
  #inParent<T>(path: string, task: (parent: Dir, name: string) => Promise<T | null>): Promise<T | null> {
    const segments = segmentsOf(path);
    return this.#withRoot(async (root) => {
      const descent = await descend(root, segments.slice(0, -1), false);
      try {
        if (descent.blocked) return null;
        return await task(descent.dirs.at(-1)!, segments.at(-1)!);
      } finally {
        await releaseDescent(descent);
      }
    });
  }

  async stat(path: string): Promise<Stat | null> {
    if (path === ROOT) return { kind: "directory" };
    return this.#inParent(path, async (parent, name): Promise<Stat | null> => {
      const stats = await parent.lstat(name);
      if (!stats) return null;
      const expiry = this.#expiry;
      if (stats.isFile()) return expiry?.isExpired(stats.mtimeMs) ? null : { kind: "file", size: stats.size };
      if (stats.isDirectory()) {
        if (!expiry) return { kind: "directory" };
        let live = false;
        await withChild(parent, name, async (child) => {
          live = await holdsLiveFile(child, expiry);
        });
        return live ? { kind: "directory" } : null;
      }
      throw stats.isSymbolicLink() ? symlinkRefused() : specialFileRefused();
    });
  }

  /**
   * A view with one `open` of the path: the file's bytes, or, when a directory is there, its listing
   * through the same descriptor (a directory view no longer tries the path as a file first).
   */
  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    if (path === ROOT) {
      const listing = await this.list(path, depth, options);
      return listing && { kind: "directory", listing };
    }
    return this.#inParent(path, async (parent, name): Promise<FileOrListing | null> => {
      const entry = openEntry(parent, name);
      if (!entry) return null;
      if (!entry.stats.isDirectory()) {
        try {
          const file = await readOpenFile(entry.fd, entry.stats, this.#expiry);
          return file && { kind: "file", file };
        } finally {
          closeSync(entry.fd);
        }
      }
      const dir = Dir.adopt(entry.fd, parent, name);
      try {
        const listing = await this.#listIn(dir, path, depth, options);
        return listing && { kind: "directory", listing };
      } finally {
        await dir.close();
      }
    });
  }

  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    return this.#withRoot(async (root) => {
      const descent = await descend(root, segmentsOf(dir), false);
      try {
        if (descent.blocked) return null;
        return await this.#listIn(descent.dirs.at(-1)!, dir, depth, options);
      } finally {
        await releaseDescent(descent);
      }
    });
  }

  async #listIn(
    handle: Dir,
    dir: string,
    depth: number,
    options: ListOptions | undefined,
  ): Promise<Listing | null> {
    const live = this.#live();
    const files = await collectFiles(handle, dir, live);
    // With expiry, a directory whose files all expired is gone (its remains wait for a sweep).
    if (live && dir !== ROOT && files.length === 0) return null;
    return listingFromFilesInSlices(dir, files, depth, { countFiles: options?.countFiles === true });
  }

  /** Every live file: expired ones (see `expireAfterSeconds`) are left out, as they are from views. */
  async files(): Promise<StoredFile[]> {
    return this.#withRoot((root) => collectAllFiles(root, ROOT, this.#live()));
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    return this.#writeWith(path, data, condition, undefined);
  }

  /**
   * `write` with the quotas checked under the store's cross-process lock, after the write's own errors,
   * against the files counted there (the walk `usage()` makes): no other change of this root comes in
   * between, so concurrent writers from any number of processes never overshoot them. Refuses with
   * `QuotaExceededError`.
   */
  async writeWithinQuota(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }> {
    wantTotals(this.root);
    return this.#writeWith(path, data, condition, quota);
  }

  async #writeWith(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota | undefined,
  ): Promise<{ version: Version }> {
    if (path === ROOT) throw new AlreadyExistsError(path);
    return this.#mutate(
      (root) => writeIn(root, path, segmentsOf(path), data, condition, quota, this.#expiry),
      // Quota checks read the kept totals in the same step as they reserve their change, so an edit under
      // a quota runs beside the batch's other edits; with expiry, changes run alone anyway.
      "ifVersion" in condition ? { edit: path } : "exclusive",
      path,
    );
  }

  /**
   * Read → change → atomic write under the cross-process lock: no other writer can come in between.
   * Edits of the same file queued in this process while the lock is held share one read and one write
   * (see group.ts).
   */
  async update(path: string, change: (current: Uint8Array) => Uint8Array | null): Promise<boolean> {
    if (path === ROOT) return false;
    const segments = segmentsOf(path);
    const name = segments.at(-1)!;
    const apply = async (root: Dir, edit: BytesChange): Promise<boolean> => {
      const descent = await descend(root, segments.slice(0, -1), false);
      try {
        if (descent.blocked) return false;
        const parent = descent.dirs.at(-1)!;
        const current = await readFileIn(parent, name, this.#expiry);
        if (!current) return false;
        const next = edit(current.data);
        if (next) {
          await writeAtomically(parent, name, next, [], this.#expiry?.now());
          totalsOf(root)?.add(0, next.byteLength - current.data.byteLength);
        }
        return true;
      } finally {
        await releaseDescent(descent);
      }
    };
    // With expiry every change runs alone (see #mutate).
    if (this.#expiry) return this.#mutate((root) => apply(root, change), { edit: path }, path);
    const fenced = this.#fenceChecked();
    if (fenced()) return Promise.reject(new ErasingError(path));
    const guarded =
      (edit: BytesChange): BytesChange =>
      (current) => {
        try {
          return edit(current);
        } catch (error) {
          throw toStoreFailure(error);
        }
      };
    // Stores that check the fence share a write only with each other: the first one's check runs for all.
    const combineKey = `${fenced === NEVER_FENCED ? "" : "fenced:"}${path}`;
    return submitEdit(this.root, path, combineKey, this.#hold, guarded(change), (root, edit) =>
      this.#guard(root, fenced, path, () => apply(root, edit)),
    );
  }

  async delete(path: string): Promise<boolean> {
    if (path === ROOT) throw new StoreFailureError("the memory directory itself cannot be deleted");
    return this.#mutate((root) => deleteIn(root, segmentsOf(path), this.#expiry), "exclusive", path);
  }

  async rename(from: string, to: string): Promise<void> {
    if (from === ROOT || to === ROOT)
      throw new StoreFailureError("the memory directory itself cannot be moved");
    return this.#mutate((root) => renameIn(root, from, to, this.#expiry), "exclusive", from);
  }

  async #withRoot<T>(task: (root: Dir) => Promise<T>): Promise<T> {
    const root = await this.#openRoot();
    try {
      return await task(root);
    } catch (error) {
      throw toStoreFailure(error);
    } finally {
      await root.close();
    }
  }

  /** Opens the root; a scope whose directory a purge removed gets a new, empty one. */
  async #openRoot(): Promise<Dir> {
    try {
      return await Dir.openRoot(this.root, this.#resolution);
    } catch (error) {
      if (
        (this.#options as ScopeOptions)[INHERITED] === undefined ||
        lstatSync(this.root, { throwIfNoEntry: false }) !== undefined
      ) {
        throw error;
      }
      // A nested scope's parent tenant may have gone too.
      mkdirSync(dirname(this.root), { recursive: true, mode: 0o700 });
      ensureDirectory(this.root);
      return Dir.openRoot(this.root, this.#resolution);
    }
  }

  /** Whether a change must be refused because this scope's tenant is being erased (fence.ts). */
  #fenceChecked(): () => boolean {
    if ((this.#options as ScopeOptions)[INHERITED] === undefined) return NEVER_FENCED;
    return () => isFenced(this.root);
  }

  /** Opens the root, takes the lock, runs `batch` (with the kept totals), releases. */
  readonly #hold = (batch: (root: Dir) => Promise<void>): Promise<void> =>
    this.#withRoot(async (root) => {
      const held = await acquire(root, this.#timing);
      try {
        if (held.recovered) await removeCrashLeftovers(root, this.#timing.staleMs);
        // Expired files leave without a change, so with expiry the totals could not be kept.
        const totals = this.#expiry
          ? null
          : await HeldTotals.open(root, held.recovered, totalsWanted(this.root));
        if (totals) await holdingTotals(root, totals, () => batch(root));
        else await batch(root);
      } finally {
        await release(root, held);
      }
    });

  /** Runs a change under the held lock: refused while fenced; errors as store errors. */
  async #guard<T>(
    root: Dir,
    fenced: () => boolean,
    path: string | undefined,
    task: () => Promise<T>,
  ): Promise<T> {
    try {
      if (fenced()) throw new ErasingError(path!);
      return await task();
    } catch (error) {
      // Refusals come before any change; anything else may have come after one.
      if (!isRefusal(error)) totalsOf(root)?.invalidate();
      throw toStoreFailure(error);
    }
  }

  /**
   * Runs a change under the cross-process lock of this root, grouped with the changes this process
   * queued meanwhile (group.ts): one lock hold for all of them, and edits of distinct files at once.
   * With expiry every change runs alone, since any of them may remove expired files anywhere.
   */
  #mutate<T>(task: (root: Dir) => Promise<T>, claim: Claim = "exclusive", path?: string): Promise<T> {
    // A change of a tenant being erased (fence.ts): refused before the root is opened (a purge may have
    // renamed it away, and opening would make it anew), and again under the lock.
    const fenced = path === undefined ? NEVER_FENCED : this.#fenceChecked();
    if (fenced()) return Promise.reject(new ErasingError(path!));
    return submit(this.root, this.#expiry ? "exclusive" : claim, this.#hold, (root) =>
      this.#guard(root, fenced, path, () => task(root)),
    );
  }
}
