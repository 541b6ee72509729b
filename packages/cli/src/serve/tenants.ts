/**
 * The tenants a console can show: the store's own `tenants()` (optional on `MemoryStore`), or the one
 * the URL's or the page's `?tenant=` names. Each tenant's store is `scope(tenant)`, wrapped in
 * `HistoryStore` when it holds versions.
 *
 * `tenants()` is matched structurally (a method of that name and shape), so any store that has it is
 * listed, whichever version of the store contract it was built against.
 */
import { checkTenant, type MemoryStore, ROOT } from "@mem/core";
import { HISTORY_NAME, HistoryStore } from "@mem/history";

/** One tenant as `tenants()` describes it. `lastAccess` is ms since the epoch (or a `Date`). */
export interface TenantInfo {
  readonly id: string;
  readonly files?: number;
  readonly bytes?: number;
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
  /** What its history keeps (`usage().historyBytes` of a tenant holding versions), apart from `bytes`. */
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
    const access = count(t.lastAccess instanceof Date ? t.lastAccess.getTime() : t.lastAccess);
    if (files !== undefined) row.files = files;
    if (bytes !== undefined) row.bytes = bytes;
    if (access !== undefined) row.lastAccess = access;
    tenants.push(row);
  }
  return typeof page.next === "string" && page.next !== "" ? { tenants, next: page.next } : { tenants };
};

/**
 * The one tenant of a store that lists none (the `?tenant=` one): files and bytes from the store's own
 * `usage()` when it keeps it (a counter, not a walk), otherwise left out.
 */
export const singleTenant = async (id: string, store: MemoryStore): Promise<{ tenants: TenantRow[] }> => {
  if (!store.usage) return { tenants: [{ id }] };
  const { files, bytes, historyBytes } = await store.usage();
  const kept = count(historyBytes);
  return { tenants: [kept === undefined ? { id, files, bytes } : { id, files, bytes, historyBytes: kept }] };
};

const AT_ONCE = 8;

/**
 * Adds `historyBytes` to the rows of tenants that keep versions, from their store's `usage()` (the
 * definition `mem du` reports), a few tenants at a time. A tenant whose usage fails is left without it.
 */
export const addHistoryBytes = async (rows: TenantRow[], stores: ConsoleStores): Promise<void> => {
  for (let at = 0; at < rows.length; at += AT_ONCE) {
    await Promise.all(
      rows.slice(at, at + AT_ONCE).map(async (row) => {
        try {
          const of = await stores.of(row.id);
          if (!(of instanceof HistoryStore) || !of.usage) return;
          const kept = count((await of.usage()).historyBytes);
          if (kept !== undefined) row.historyBytes = kept;
        } catch {
          // Shown without it.
        }
      }),
    );
  }
};

/** A store that can list its tenants. */
export type TenantListing = MemoryStore & {
  tenants(options?: { after?: string; limit?: number }): Promise<TenantPage>;
};

export const listsTenants = (store: MemoryStore): store is TenantListing =>
  typeof (store as Partial<TenantListing>).tenants === "function";

const HISTORY_DIR = `${ROOT}/${HISTORY_NAME}`;

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
      const scope = this.root.scope(tenant);
      found =
        scope instanceof HistoryStore
          ? Promise.resolve(scope)
          : scope
              .stat(HISTORY_DIR)
              .then((stat) => (stat?.kind === "directory" ? new HistoryStore(scope) : scope));
      // A failed look is not remembered: the next request tries again.
      found.catch(() => this.#scopes.delete(tenant));
      this.#scopes.set(tenant, found);
    }
    return found;
  }
}
