/** `mountStores`: one `/memories` made of several stores mounted at directories (SPEC §8). */
import type { ChangeContext } from "../actor.js";
import {
  AlreadyExistsError,
  ConflictError,
  NotADirectoryError,
  NotFoundError,
  QuotaExceededError,
} from "../errors.js";
import { isStoreError } from "../failure.js";
import { usageOf } from "../quota.js";
import type {
  FileData,
  FileOrListing,
  LineWindow,
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
} from "../store.js";
import { checkTenant } from "../tenant.js";
import { compareTenantIds, purgeOptions, tenantPage, tenantPageOptions } from "../tenants.js";
import { isSameOrInside, ROOT, segmentsOf } from "../tree.js";
import { heldAt, inner, mergeListing, outer, outerListing, topMountsBelow } from "./listing.js";
import { MOUNTS } from "./refusals.js";
import { checkMountTable, type Mount, type MountInfo, type MountTable, ownerOf } from "./table.js";

/** A store error of a mounted store, with its paths as the table shows them. */
const outerError = (mount: string, error: unknown): unknown => {
  if (mount === ROOT || typeof error !== "object" || error === null) return error;
  const e = error as { path?: string; ancestor?: string };
  const at = (p: string | undefined): string => (p === undefined ? mount : outer(mount, p));
  if (isStoreError(error, "NOT_A_DIRECTORY")) return new NotADirectoryError(at(e.path), at(e.ancestor));
  if (isStoreError(error, "ALREADY_EXISTS")) return new AlreadyExistsError(at(e.path));
  if (isStoreError(error, "NOT_FOUND")) return new NotFoundError(at(e.path));
  if (isStoreError(error, "CONFLICT")) return new ConflictError(at(e.path));
  if (isStoreError(error, "QUOTA_EXCEEDED")) {
    return new QuotaExceededError(at(e.path), (error as QuotaExceededError).usage);
  }
  return error;
};

/** A mount as `mounts` describes it: without its store and its policies. */
const infoOf = ({ path, access, instructions, perTenant }: Mount): MountInfo => ({
  path,
  access,
  ...(instructions === undefined ? {} : { instructions }),
  perTenant,
});

const every = (mounts: readonly Mount[], has: (store: MemoryStore) => boolean): boolean =>
  mounts.every((m) => has(m.store));

/**
 * A `MemoryStore` made of the stores of a mount table; see `mountStores`. Core's dispatcher answers the
 * refusals of SPEC §8 (mount points, read-only mounts, renames across mounts) before any call reaches it.
 */
export class MountedStore implements MemoryStore {
  readonly #mounts: readonly Mount[];
  /** Mount points other than `/memories`: what `#holdsMount` and listings look for. */
  readonly #points: readonly string[];
  readonly backend = "mounts";
  readonly capabilities: StoreCapabilities;
  /** Present when every mounted store has a native `update`. */
  readonly update?: (
    path: string,
    change: (current: Uint8Array) => Uint8Array | null,
    context?: ChangeContext,
  ) => Promise<boolean>;
  /** Present when every mounted store can enumerate its files. */
  readonly files?: () => Promise<StoredFile[]>;
  /** Present when every mounted store answers a view in one request. */
  readonly readOrList?: (path: string, depth: number, options?: ListOptions) => Promise<FileOrListing | null>;
  /** Present when some mounted store reads windows of lines; paths of the others read their files. */
  readonly readLines?: (
    path: string,
    from: number,
    through: number,
  ) => Promise<LineWindow | null | undefined>;
  /** Present when a mounted store reserves names of its own: the names any of them reserves. */
  readonly isReservedName?: (name: string) => boolean;

  private constructor(mounts: readonly Mount[]) {
    this.#mounts = mounts;
    this.#points = mounts.map((m) => m.path).filter((p) => p !== ROOT);
    const caps = mounts.map((m) => m.store.capabilities);
    this.capabilities = {
      crossProcessSafe: caps.every((c) => c?.crossProcessSafe === true),
      atomicDirectoryRename: caps.every((c) => c?.atomicDirectoryRename === true),
      ...(caps.every((c) => c?.localStat === true) ? { localStat: true } : {}),
    };
    if (every(mounts, (s) => s.update !== undefined)) this.update = this.#update.bind(this);
    if (every(mounts, (s) => s.files !== undefined)) this.files = this.#files.bind(this);
    if (every(mounts, (s) => s.readOrList !== undefined)) this.readOrList = this.#readOrList.bind(this);
    if (mounts.some((m) => m.store.readLines !== undefined)) this.readLines = this.#readLines.bind(this);
    const reserving = mounts.map((m) => m.store).filter((s) => s.isReservedName !== undefined);
    if (reserving.length > 0) {
      this.isReservedName = (name) => reserving.some((s) => s.isReservedName?.(name) === true);
    }
  }

  /** The mounts, for core's dispatcher (see `mountRefusal`). */
  get [MOUNTS](): readonly Mount[] {
    return this.#mounts;
  }

  /** Checks `table` and builds the store (see `mountStores`). */
  static of(table: MountTable): MountedStore {
    return new MountedStore(checkMountTable(table));
  }

  /** The mounts, by mount point in byte order, without their stores. */
  get mounts(): readonly MountInfo[] {
    return [...this.#mounts].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map(infoOf);
  }

  /**
   * Where a canonical path lives: its mount (described), that mount's store, and the path as that store
   * sees it. For tools that reach a mounted store's own API (the versions of a history store).
   */
  mountOf(path: string): { mount: MountInfo; store: MemoryStore; path: string } {
    const { mount, path: p } = this.#route(path);
    return { mount: infoOf(mount), store: mount.store, path: p };
  }

  /** True when `path` is a mount point other than `/memories`, or a directory above one. */
  #holdsMount(path: string): boolean {
    for (const point of this.#points) if (isSameOrInside(point, path)) return true;
    return false;
  }

  /** True when a mount point lies strictly beneath `dir` (its listings then merge mounts). */
  #mountsBelow(dir: string): boolean {
    for (const point of this.#points) if (point !== dir && isSameOrInside(point, dir)) return true;
    return false;
  }

  #route(path: string): { mount: Mount; path: string } {
    const mount = ownerOf(this.#mounts, path);
    return { mount, path: inner(mount.path, path) };
  }

  // The hot paths hand back the mounted store's own promise: no extra step per call.
  read(path: string): Promise<FileData | null> {
    if (this.#holdsMount(path)) return Promise.resolve(null);
    const mount = ownerOf(this.#mounts, path);
    return mount.store.read(inner(mount.path, path));
  }

  stat(path: string): Promise<Stat | null> {
    if (path === ROOT || this.#holdsMount(path)) return Promise.resolve({ kind: "directory" });
    const mount = ownerOf(this.#mounts, path);
    return mount.store.stat(inner(mount.path, path));
  }

  list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    const mount = ownerOf(this.#mounts, dir);
    if (this.#mountsBelow(dir)) return this.#merged(mount, dir, depth, options);
    const listing = mount.store.list(inner(mount.path, dir), depth, options);
    if (mount.path === ROOT) return listing;
    return listing.then((found) => found && outerListing(mount.path, found));
  }

  /** The listing of `dir`, owned by `mount`, with the mounts below it merged in. */
  async #merged(mount: Mount, dir: string, depth: number, options?: ListOptions): Promise<Listing> {
    const p = inner(mount.path, dir);
    const tops = topMountsBelow(this.#mounts, dir);
    const below = segmentsOf(dir).length;
    const [base, ...parts] = await Promise.all([
      mount.store.list(p, depth),
      ...tops.map(async (top) => {
        const left = depth - (segmentsOf(top.path).length - below);
        const listing = await this.list(top.path, Math.max(left, 1), left > 0 ? undefined : { limit: 1 });
        return { mount: top, listing: listing ?? { size: 0, entries: [] } };
      }),
    ]);
    return mergeListing(
      dir,
      depth,
      { mount, base: base ? outerListing(mount.path, base) : null },
      parts,
      (at) => heldAt(mount.store, mount.path, at),
      options,
    );
  }

  #readLines(path: string, from: number, through: number): Promise<LineWindow | null | undefined> {
    if (this.#holdsMount(path)) return Promise.resolve(null);
    const mount = ownerOf(this.#mounts, path);
    const readLines = mount.store.readLines;
    if (!readLines) return Promise.resolve(undefined);
    return readLines.call(mount.store, inner(mount.path, path), from, through);
  }

  /** Every mounted store has `readOrList`. A path above a mount point (or one) is a merged listing. */
  #readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    if (path !== ROOT && !this.#holdsMount(path)) {
      const mount = ownerOf(this.#mounts, path);
      const readOrList = mount.store.readOrList as NonNullable<MemoryStore["readOrList"]>;
      if (mount.path === ROOT) return readOrList.call(mount.store, path, depth, options);
      return readOrList
        .call(mount.store, inner(mount.path, path), depth, options)
        .then((found) =>
          found?.kind === "directory"
            ? { kind: "directory", listing: outerListing(mount.path, found.listing) }
            : found,
        );
    }
    return this.list(path, depth, options).then((listing) => listing && { kind: "directory", listing });
  }

  async write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    context?: ChangeContext,
  ): Promise<{ version: Version }> {
    if (path === ROOT || this.#holdsMount(path)) {
      throw "ifAbsent" in condition ? new AlreadyExistsError(path) : new ConflictError(path);
    }
    const { mount, path: p } = this.#route(path);
    // Errors name paths: only a store mounted below `/memories` needs them moved.
    if (mount.path === ROOT) return mount.store.write(p, data, condition, context);
    try {
      return await mount.store.write(p, data, condition, context);
    } catch (error) {
      throw outerError(mount.path, error);
    }
  }

  #update(
    path: string,
    change: (current: Uint8Array) => Uint8Array | null,
    context?: ChangeContext,
  ): Promise<boolean> {
    if (path === ROOT || this.#holdsMount(path)) return Promise.resolve(false);
    const mount = ownerOf(this.#mounts, path);
    const update = mount.store.update as NonNullable<MemoryStore["update"]>;
    const done = update.call(mount.store, inner(mount.path, path), change, context);
    if (mount.path === ROOT) return done;
    return done.catch((error: unknown) => {
      throw outerError(mount.path, error);
    });
  }

  async delete(path: string, context?: ChangeContext): Promise<boolean> {
    if (path === ROOT || this.#holdsMount(path)) {
      throw new TypeError(`cannot delete ${path}: a memory is mounted there or beneath it`);
    }
    const { mount, path: p } = this.#route(path);
    try {
      return await mount.store.delete(p, context);
    } catch (error) {
      throw outerError(mount.path, error);
    }
  }

  async rename(from: string, to: string, context?: ChangeContext): Promise<void> {
    if (from === ROOT || this.#holdsMount(from)) {
      throw new TypeError(`cannot rename ${from}: a memory is mounted there or beneath it`);
    }
    const source = this.#route(from);
    const target = this.#route(to);
    if (source.mount !== target.mount) {
      throw new TypeError(`cannot rename ${from} to ${to}: they are in different memories`);
    }
    if (this.#holdsMount(to)) {
      if (!(await source.mount.store.stat(source.path))) throw new NotFoundError(from);
      throw new AlreadyExistsError(to);
    }
    try {
      await source.mount.store.rename(source.path, target.path, context);
    } catch (error) {
      throw outerError(source.mount.path, error);
    }
  }

  /** Every mount's usage, summed. */
  async usage(): Promise<Usage> {
    const all = await Promise.all(this.#mounts.map((m) => usageOf(m.store)));
    const sum: Usage = { files: 0, bytes: 0 };
    for (const u of all) {
      sum.files += u.files;
      sum.bytes += u.bytes;
      if (u.historyBytes !== undefined) sum.historyBytes = (sum.historyBytes ?? 0) + u.historyBytes;
    }
    return sum;
  }

  async sweep(): Promise<SweepResult> {
    const all = await Promise.all(
      this.#mounts.map(async (m) => ({ m, r: (await m.store.sweep?.()) ?? { paths: [], bytes: 0 } })),
    );
    return {
      paths: all.flatMap(({ m, r }) => r.paths.map((p) => outer(m.path, p))),
      bytes: all.reduce((n, { r }) => n + r.bytes, 0),
    };
  }

  async #files(): Promise<StoredFile[]> {
    const all = await Promise.all(
      this.#mounts.map(async (m) => ({ m, files: await (m.store.files as () => Promise<StoredFile[]>)() })),
    );
    return all.flatMap(({ m, files }) =>
      files
        .map((f) => ({ path: outer(m.path, f.path), size: f.size }))
        .filter((f) => ownerOf(this.#mounts, f.path) === m && !this.#holdsMount(f.path)),
    );
  }

  /** Checks every mounted store. */
  async check(): Promise<void> {
    await Promise.all(this.#mounts.map((m) => m.store.check?.()));
  }

  /**
   * The table for one tenant: every `perTenant` mount scoped to `tenant`, the shared mounts as they are.
   * A `TypeError` when no mount is per-tenant (a scope would then share everything).
   */
  scope(tenant: string): MemoryStore {
    checkTenant(tenant);
    if (!this.#mounts.some((m) => m.perTenant)) {
      throw new TypeError("scope() needs a mount with perTenant: true; every mount of this table is shared");
    }
    return new MountedStore(
      this.#mounts.map((m) => {
        if (!m.perTenant) return m;
        if (!m.store.scope) throw new TypeError(`the store mounted at ${m.path} has no scope()`);
        return { ...m, store: m.store.scope(tenant) };
      }),
    );
  }

  /** The tenants of the `perTenant` mounts, merged by id (a shared mount has none). */
  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    const { after, limit } = tenantPageOptions(options);
    const pages = await Promise.all(
      this.#mounts
        .filter((m) => m.perTenant && m.store.tenants)
        .map((m) =>
          (m.store.tenants as NonNullable<MemoryStore["tenants"]>)({
            ...(after === undefined ? {} : { after }),
            limit: Math.min(limit + 1, 1000),
          }),
        ),
    );
    const byId = new Map<string, TenantInfo>();
    for (const info of pages.flatMap((p) => p.tenants)) {
      const seen = byId.get(info.id);
      byId.set(info.id, seen ? mergeTenant(seen, info) : info);
    }
    const sorted = [...byId.values()].sort((a, b) => compareTenantIds(a.id, b.id)).slice(0, limit + 1);
    return tenantPage(sorted, limit);
  }

  /** Erases the tenant from every `perTenant` mount; shared mounts are never touched. */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    purgeOptions(options);
    const targets = this.#mounts.filter((m) => m.perTenant);
    if (targets.length === 0) throw new TypeError("purge() needs a mount with perTenant: true");
    const results: PurgeResult[] = [];
    for (const m of targets) {
      if (!m.store.purge) throw new TypeError(`the store mounted at ${m.path} has no purge()`);
      results.push(await m.store.purge(options));
    }
    const versions = results.some((r) => r.versions !== undefined)
      ? { versions: results.reduce((n, r) => n + (r.versions ?? 0), 0) }
      : {};
    return {
      files: results.reduce((n, r) => n + r.files, 0),
      bytes: results.reduce((n, r) => n + r.bytes, 0),
      ...versions,
    };
  }

  /** Closes every mounted store once. */
  async close(): Promise<void> {
    const stores = new Set(this.#mounts.map((m) => m.store));
    await Promise.all([...stores].map((s) => s.close?.()));
  }
}

const mergeTenant = (a: TenantInfo, b: TenantInfo): TenantInfo => {
  const add = (x?: number, y?: number): number | undefined =>
    x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0);
  const files = add(a.files, b.files);
  const bytes = add(a.bytes, b.bytes);
  const last =
    a.lastAccess === undefined && b.lastAccess === undefined
      ? undefined
      : Math.max(a.lastAccess ?? 0, b.lastAccess ?? 0);
  return {
    id: a.id,
    ...(files === undefined ? {} : { files }),
    ...(bytes === undefined ? {} : { bytes }),
    ...(last === undefined ? {} : { lastAccess: last }),
  };
};

/**
 * One `/memories` made of several stores, each mounted at a directory: a path belongs to the mount with
 * the longest mount point, and its store sees the path relative to it (SPEC §8). The table must mount
 * `/memories`; a bad table is a `TypeError` naming the mount, here and not at the first call.
 *
 * @example
 * ```ts
 * import { executeCommand, InMemoryStore, mountStores } from "@mem/core";
 * const memory = mountStores({
 *   "/memories": { store: new InMemoryStore() },
 *   "/memories/team": { store: new InMemoryStore(), access: "read_only", instructions: "The team's playbook." },
 * });
 * await executeCommand(memory, { command: "view", path: "/memories" });
 * ```
 */
export function mountStores(table: MountTable): MountedStore {
  return MountedStore.of(table);
}
