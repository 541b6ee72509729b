/**
 * The tenants a console can show: the store's own `tenants()` (optional on `MemoryStore`), or the one
 * the URL's or the page's `?tenant=` names. Each tenant's store is `scope(tenant)`, wrapped in
 * `HistoryStore` when it holds versions.
 */
import { checkTenant, type MemoryStore, ROOT } from "@mem/core";
import { HISTORY_NAME, HistoryStore } from "@mem/history";

/** One tenant as `tenants()` describes it. */
export interface TenantInfo {
  readonly id: string;
  readonly files?: number;
  readonly bytes?: number;
  readonly lastAccess?: number;
}

/** One page of tenants; `next` continues after it. */
export interface TenantPage {
  readonly tenants: readonly TenantInfo[];
  readonly next?: string;
}

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
