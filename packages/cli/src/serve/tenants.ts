/**
 * The tenants a console can show: the store's own `tenants()` (optional on `MemoryStore`), or the one
 * the URL's or the page's `?tenant=` names. Each tenant's store is `scope(tenant)`, wrapped in
 * `HistoryStore` when it holds versions.
 *
 * `tenants()` is matched structurally (a method of that name and shape), so any store that has it is
 * listed, whichever version of the store contract it was built against.
 */
import { checkTenant, type MemoryStore } from "@mem/core";
import { countStore, withKeptHistory } from "@mem/open";

/** One tenant as `tenants()` describes it. `lastAccess` is ms since the epoch (or a `Date`). */
export interface TenantInfo {
  readonly id: string;
  readonly files?: number;
  readonly bytes?: number;
  readonly historyBytes?: number;
  readonly lastAccess?: Date | number;
}

/** One page of tenants; `next` continues after it. */
export interface TenantPage {
  readonly tenants: readonly TenantInfo[];
  readonly next?: string;
}

/** A tenant as the page receives it: only the fields the store gave, `lastAccess` in ms. */
export interface TenantRow {
  id: string;
  files?: number;
  bytes?: number;
  /** What its history keeps, apart from `bytes` (`countStore`). */
  historyBytes?: number;
  lastAccess?: number;
}

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * A page of `tenants()` as JSON for the page: numbers checked, `lastAccess` in ms whichever form the
 * store gave. Entries without a string id are left out rather than shown wrong.
 */
export const tenantPageOf = (page: TenantPage): { tenants: TenantRow[]; next?: string } => {
  const tenants: TenantRow[] = [];
  for (const t of page.tenants ?? []) {
    if (typeof t?.id !== "string") continue;
    const row: TenantRow = { id: t.id };
    const files = count(t.files);
    const bytes = count(t.bytes);
    const historyBytes = count(t.historyBytes);
    const access = count(t.lastAccess instanceof Date ? t.lastAccess.getTime() : t.lastAccess);
    if (files !== undefined) row.files = files;
    if (bytes !== undefined) row.bytes = bytes;
    if (historyBytes !== undefined) row.historyBytes = historyBytes;
    if (access !== undefined) row.lastAccess = access;
    tenants.push(row);
  }
  return typeof page.next === "string" && page.next !== "" ? { tenants, next: page.next } : { tenants };
};

/**
 * The one tenant of a store that lists none (the `?tenant=` one), with the count every surface shows
 * (`countStore`).
 */
export const singleTenant = async (id: string, store: MemoryStore): Promise<{ tenants: TenantRow[] }> => {
  const { files, bytes, historyBytes } = await countStore(store);
  return { tenants: [{ id, files, bytes, historyBytes }] };
};

/** A store that can list its tenants. */
export type TenantListing = MemoryStore & {
  tenants(options?: { after?: string; limit?: number }): Promise<TenantPage>;
};

export const listsTenants = (store: MemoryStore): store is TenantListing =>
  typeof (store as Partial<TenantListing>).tenants === "function";

/** The stores of one console: the root, and one per tenant asked for (kept while the server runs). */
export class ConsoleStores {
  readonly #scopes = new Map<string, Promise<MemoryStore>>();
  constructor(readonly root: MemoryStore) {}

  get scoped(): boolean {
    return typeof this.root.scope === "function";
  }

  /** The store of `tenant` (`undefined`: the root). Throws `TypeError` for an invalid tenant id. */
  of(tenant: string | undefined): Promise<MemoryStore> {
    if (tenant === undefined || tenant === "") return Promise.resolve(this.root);
    if (!this.root.scope) throw new TypeError("this store has no tenants");
    checkTenant(tenant);
    let found = this.#scopes.get(tenant);
    if (!found) {
      found = withKeptHistory(this.root.scope(tenant));
      // A failed look is not remembered: the next request tries again.
      found.catch(() => this.#scopes.delete(tenant));
      this.#scopes.set(tenant, found);
    }
    return found;
  }
}
