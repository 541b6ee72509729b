/**
 * A per-tenant mount whose URL holds `{tenant}` outside `?tenant=` (`sqlite:./users/{tenant}.db`): one
 * store per tenant, opened on first use. The unscoped store holds nothing of its own.
 */
import {
  type ChangeContext,
  checkTenant,
  type FileData,
  type Listing,
  type ListOptions,
  type MemoryStore,
  type PurgeOptions,
  type PurgeResult,
  ROOT,
  type Stat,
  StoreFailureError,
  type SweepResult,
  type TenantPage,
  type TenantsOptions,
  type Usage,
  usageOf,
  type Version,
  type WriteCondition,
} from "@mem/core";
import { tenantLister } from "./tenant-files.js";

const UNSCOPED = "this memory is kept per tenant, and no tenant was given";

/** Opens `url` with the tenant in place of `{tenant}` the first time a call needs the store. */
class LazyTenantStore implements MemoryStore {
  readonly #open: () => Promise<MemoryStore>;
  #store: Promise<MemoryStore> | undefined;

  constructor(open: () => Promise<MemoryStore>) {
    this.#open = open;
  }

  #get(): Promise<MemoryStore> {
    this.#store ??= this.#open().catch((error: unknown) => {
      this.#store = undefined;
      throw error;
    });
    return this.#store;
  }

  async read(path: string): Promise<FileData | null> {
    return (await this.#get()).read(path);
  }
  async stat(path: string): Promise<Stat | null> {
    return (await this.#get()).stat(path);
  }
  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    return (await this.#get()).list(dir, depth, options);
  }
  async write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    context?: ChangeContext,
  ): Promise<{ version: Version }> {
    return (await this.#get()).write(path, data, condition, context);
  }
  async delete(path: string, context?: ChangeContext): Promise<boolean> {
    return (await this.#get()).delete(path, context);
  }
  async rename(from: string, to: string, context?: ChangeContext): Promise<void> {
    return (await this.#get()).rename(from, to, context);
  }
  async usage(): Promise<Usage> {
    return usageOf(await this.#get());
  }
  async sweep(): Promise<SweepResult> {
    return (await (await this.#get()).sweep?.()) ?? { paths: [], bytes: 0 };
  }
  /** Erases the tenant's store: every file it holds (the store is the tenant's alone). */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    const store = await this.#get();
    const usage = await usageOf(store);
    if (options?.dryRun !== true) {
      // Hidden files too: listings leave them out, `files()` does not.
      for (const file of (await store.files?.()) ?? []) await store.delete(file.path);
      const listing = await store.list(ROOT, 1);
      for (const entry of listing?.entries ?? []) await store.delete(entry.path);
    }
    return { files: usage.files, bytes: usage.bytes };
  }
  async check(): Promise<void> {
    await (await this.#get()).check?.();
  }
  async close(): Promise<void> {
    const store = this.#store;
    this.#store = undefined;
    await (await store)?.close?.();
  }
}

/**
 * The unscoped side of a `{tenant}` mount: empty, refusing writes; `scope(tenant)` is the tenant's store.
 * `tenants()` is there when `{tenant}` names a local file or directory (see `tenantLister`).
 */
export class TenantUrlStore implements MemoryStore {
  readonly #url: string;
  readonly #open: (url: string) => Promise<MemoryStore>;
  readonly tenants?: (options?: TenantsOptions) => Promise<TenantPage>;

  constructor(url: string, open: (url: string) => Promise<MemoryStore>, cwd?: string) {
    this.#url = url;
    this.#open = open;
    const tenants = cwd === undefined ? undefined : tenantLister(url, cwd);
    if (tenants) this.tenants = tenants;
  }

  scope(tenant: string): MemoryStore {
    checkTenant(tenant);
    const url = this.#url.replaceAll("{tenant}", tenant);
    return new LazyTenantStore(() => this.#open(url));
  }

  async read(): Promise<FileData | null> {
    return null;
  }
  async stat(path: string): Promise<Stat | null> {
    return path === ROOT ? { kind: "directory" } : null;
  }
  async list(dir: string): Promise<Listing | null> {
    return dir === ROOT ? { size: 0, entries: [] } : null;
  }
  async write(): Promise<{ version: Version }> {
    throw new StoreFailureError(UNSCOPED);
  }
  async delete(): Promise<boolean> {
    return false;
  }
  async rename(): Promise<void> {
    throw new StoreFailureError(UNSCOPED);
  }
}
