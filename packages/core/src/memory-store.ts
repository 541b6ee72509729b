/** The reference store: everything in process memory, complete and concurrency-correct. */
import {
  AlreadyExistsError,
  ConflictError,
  NotADirectoryError,
  NotFoundError,
  QuotaExceededError,
} from "./errors.js";
import { type Expiry, expiryOf } from "./expiry.js";
import { exceedsQuota } from "./quota.js";
import type {
  ExpiryOptions,
  FileData,
  Listing,
  ListOptions,
  MemoryStore,
  PurgeOptions,
  PurgeResult,
  Stat,
  StoreCapabilities,
  StoredFile,
  SweepResult,
  TenantInfo,
  TenantPage,
  TenantsOptions,
  Usage,
  Version,
  WriteCondition,
  WriteQuota,
} from "./store.js";
import { checkTenant } from "./tenant.js";
import {
  compareTenantIds,
  purgeOptions,
  tenantPage,
  tenantPageOptions,
  unscopedPurgeError,
} from "./tenants.js";
import { ancestorsOf, isSameOrInside, listingFromFilesInSlices, ROOT, rebase } from "./tree.js";

interface Entry {
  data: Uint8Array;
  version: Version;
  /** Last access (SPEC §7), in the clock's milliseconds; 0 when expiry is off. */
  accessed: number;
}

/** Options of {@link InMemoryStore}: expiry only (SPEC §7). */
export type InMemoryStoreOptions = ExpiryOptions;

/**
 * A `MemoryStore` held in a `Map`. Every method runs its checks and its change in one synchronous step,
 * so concurrent commands on one instance behave as if run one after another. Useful for tests and as
 * the model every other store is measured against.
 *
 * `scope(tenant)` gives each tenant a `/memories` of its own (the same object for the same tenant, kept
 * for the parent's lifetime); `expireAfterSeconds` makes files not accessed for that long disappear.
 * With expiry on, files are kept in access order, so finding the expired ones costs only their number.
 *
 * @example
 * ```ts
 * import { executeCommand, InMemoryStore } from "@mem/core";
 * const store = new InMemoryStore();
 * await executeCommand(store, { command: "create", path: "/memories/todo.md", file_text: "- [ ] ship\n" });
 * ```
 */
export class InMemoryStore implements MemoryStore {
  readonly backend = "memory";
  readonly capabilities: StoreCapabilities = { crossProcessSafe: false, atomicDirectoryRename: true };
  readonly #files = new Map<string, Entry>();
  /** How many files lie beneath each existing directory (implicit directories, SPEC §3). */
  readonly #dirs = new Map<string, number>();
  readonly #scopes = new Map<string, InMemoryStore>();
  readonly #options: InMemoryStoreOptions;
  readonly #expiry: Expiry | null;
  #bytes = 0;
  #clock = 0;
  /** Set on a scope: `purge()` is allowed only there. */
  #scoped = false;

  constructor(options: InMemoryStoreOptions = {}) {
    this.#expiry = expiryOf(options);
    this.#options = { ...options };
  }

  /** The store of `tenant`, nested in this one; throws `TypeError` for an invalid tenant id. */
  scope(tenant: string): InMemoryStore {
    checkTenant(tenant);
    let scoped = this.#scopes.get(tenant);
    if (!scoped) {
      scoped = new InMemoryStore(this.#options);
      scoped.#scoped = true;
      this.#scopes.set(tenant, scoped);
    }
    return scoped;
  }

  async usage(): Promise<Usage> {
    this.#reap();
    return { files: this.#files.size, bytes: this.#bytes };
  }

  async sweep(): Promise<SweepResult> {
    const removed = this.#reap();
    return {
      paths: removed.map(([path]) => path),
      bytes: removed.reduce((n, [, e]) => n + e.data.byteLength, 0),
    };
  }

  async check(): Promise<void> {}

  /** The scopes that hold anything (files, or nested tenants that do), in byte order of id. */
  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    const { after, limit } = tenantPageOptions(options);
    const found: TenantInfo[] = [];
    for (const id of [...this.#scopes.keys()].sort(compareTenantIds)) {
      if (after !== undefined && compareTenantIds(id, after) <= 0) continue;
      const scoped = this.#scopes.get(id) as InMemoryStore;
      scoped.#reap();
      if (!scoped.#holdsAnything()) continue;
      found.push(scoped.#info(id));
      if (found.length > limit) break;
    }
    return tenantPage(found, limit);
  }

  /**
   * Empties this scope and every scope nested in it (the objects stay usable and empty). Everything
   * happens in one synchronous step, so no write can interleave.
   */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    const { dryRun } = purgeOptions(options);
    if (!this.#scoped) throw unscopedPurgeError();
    this.#reap();
    const total = this.#totals();
    if (!dryRun) this.#clear();
    return total;
  }

  #holdsAnything(): boolean {
    if (this.#files.size > 0) return true;
    for (const scoped of this.#scopes.values()) if (scoped.#holdsAnything()) return true;
    return false;
  }

  #info(id: string): TenantInfo {
    let lastAccess = 0;
    for (const entry of this.#files.values()) lastAccess = Math.max(lastAccess, entry.accessed);
    return lastAccess > 0
      ? { id, files: this.#files.size, bytes: this.#bytes, lastAccess }
      : { id, files: this.#files.size, bytes: this.#bytes };
  }

  #totals(): { files: number; bytes: number } {
    let files = this.#files.size;
    let bytes = this.#bytes;
    for (const scoped of this.#scopes.values()) {
      const nested = scoped.#totals();
      files += nested.files;
      bytes += nested.bytes;
    }
    return { files, bytes };
  }

  #clear(): void {
    this.#files.clear();
    this.#dirs.clear();
    this.#bytes = 0;
    for (const scoped of this.#scopes.values()) scoped.#clear();
  }

  async read(path: string): Promise<FileData | null> {
    this.#reap();
    const entry = this.#files.get(path);
    if (!entry) return null;
    this.#touch(path, entry);
    return { data: entry.data.slice(), version: entry.version };
  }

  async stat(path: string): Promise<Stat | null> {
    this.#reap();
    if (path === ROOT || this.#dirs.has(path)) return { kind: "directory" };
    const entry = this.#files.get(path);
    return entry ? { kind: "file", size: entry.data.byteLength } : null;
  }

  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    this.#reap();
    if (dir !== ROOT && !this.#dirs.has(dir)) return null;
    // A snapshot taken in one step, the listing then built from it in slices. Two flat arrays rather
    // than an object per file: objects that outlive the slices would each be copied by the collector.
    const paths: string[] = [];
    const sizes: number[] = [];
    for (const [path, entry] of this.#files) {
      if (isSameOrInside(path, dir)) {
        paths.push(path);
        sizes.push(entry.data.byteLength);
      }
    }
    function* files() {
      for (let i = 0; i < paths.length; i++) yield { path: paths[i]!, size: sizes[i]! };
    }
    return listingFromFilesInSlices(dir, files(), depth, { countFiles: options?.countFiles === true });
  }

  async files(): Promise<StoredFile[]> {
    return [...this.#files].map(([path, entry]) => ({ path, size: entry.data.byteLength }));
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    return this.#write(path, data, condition, undefined);
  }

  /** `write` refused with `QuotaExceededError` beyond `quota`; one synchronous step, so always exact. */
  async writeWithinQuota(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }> {
    return this.#write(path, data, condition, quota);
  }

  #write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota | undefined,
  ): { version: Version } {
    this.#reap();
    this.#checkAncestors(path);
    const current = this.#files.get(path);
    if ("ifAbsent" in condition) {
      if (current || this.#dirs.has(path)) throw new AlreadyExistsError(path);
    } else if (!current || current.version !== condition.ifVersion) {
      throw new ConflictError(path);
    }
    if (quota) {
      const usage = { files: this.#files.size, bytes: this.#bytes };
      if (exceedsQuota(quota, usage, data.byteLength, current ? current.data.byteLength : null)) {
        throw new QuotaExceededError(path, usage);
      }
    }
    const version = this.#nextVersion();
    if (current) this.#remove(path, current);
    this.#add(path, { data: data.slice(), version, accessed: 0 });
    return { version };
  }

  async delete(path: string): Promise<boolean> {
    this.#reap();
    const targets = [...this.#files].filter(([p]) => isSameOrInside(p, path));
    for (const [p, entry] of targets) this.#remove(p, entry);
    return targets.length > 0;
  }

  async rename(from: string, to: string): Promise<void> {
    this.#reap();
    const moving = [...this.#files].filter(([p]) => isSameOrInside(p, from));
    if (moving.length === 0) throw new NotFoundError(from);
    if (this.#files.has(to) || this.#dirs.has(to) || to === ROOT) throw new AlreadyExistsError(to);
    this.#checkAncestors(to);
    for (const [p, entry] of moving) this.#remove(p, entry);
    for (const [p, entry] of moving) this.#add(rebase(p, from, to), entry);
  }

  /** Adds a file as accessed now, at the end of the access order. */
  #add(path: string, entry: Entry): void {
    if (this.#expiry) entry.accessed = this.#expiry.now();
    this.#files.set(path, entry);
    this.#countFile(path, 1);
    this.#bytes += entry.data.byteLength;
  }

  #remove(path: string, entry: Entry): void {
    this.#files.delete(path);
    this.#countFile(path, -1);
    this.#bytes -= entry.data.byteLength;
  }

  /** Marks a read file accessed: it moves to the end of the access order. */
  #touch(path: string, entry: Entry): void {
    if (!this.#expiry) return;
    this.#files.delete(path);
    entry.accessed = this.#expiry.now();
    this.#files.set(path, entry);
  }

  /** Removes the expired files, which lead the access order, and returns them. */
  #reap(): [string, Entry][] {
    const expiry = this.#expiry;
    if (!expiry) return [];
    const now = expiry.now();
    const removed: [string, Entry][] = [];
    for (const [path, entry] of this.#files) {
      if (!expiry.isExpired(entry.accessed, now)) break;
      removed.push([path, entry]);
    }
    for (const [path, entry] of removed) this.#remove(path, entry);
    return removed;
  }

  #checkAncestors(path: string): void {
    for (const ancestor of ancestorsOf(path).reverse()) {
      if (this.#files.has(ancestor)) throw new NotADirectoryError(path, ancestor);
    }
  }

  #countFile(path: string, delta: 1 | -1): void {
    for (const dir of ancestorsOf(path)) {
      if (dir === ROOT) continue;
      const count = (this.#dirs.get(dir) ?? 0) + delta;
      if (count > 0) this.#dirs.set(dir, count);
      else this.#dirs.delete(dir);
    }
  }

  #nextVersion(): Version {
    this.#clock += 1;
    return String(this.#clock);
  }
}
