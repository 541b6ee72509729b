/** Shared rules of `tenants()` and `purge()` (see `MemoryStore`), so every store checks options alike. */
import type { PurgeOptions, TenantInfo, TenantPage, TenantsOptions } from "./store.js";
import { checkTenant } from "./tenant.js";

/** Page size of `tenants()` when `limit` is not given. */
export const DEFAULT_TENANT_PAGE = 100;
/** The largest page `tenants()` returns, so one page stays a bounded number of requests. */
export const MAX_TENANT_PAGE = 1000;

/**
 * The checked options of `tenants()`: `after` a tenant id (or absent), `limit` an integer from 1 to
 * `MAX_TENANT_PAGE` (default `DEFAULT_TENANT_PAGE`). Anything else is a `TypeError` naming the option.
 */
export function tenantPageOptions(options: TenantsOptions | undefined): {
  after: string | undefined;
  limit: number;
} {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new TypeError("tenants() options must be an object");
  }
  const after = options?.after;
  if (after !== undefined) {
    if (typeof after !== "string") throw new TypeError("after must be a tenant id");
    try {
      checkTenant(after);
    } catch {
      throw new TypeError("after must be a tenant id");
    }
  }
  const limit = options?.limit ?? DEFAULT_TENANT_PAGE;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > MAX_TENANT_PAGE) {
    throw new TypeError(`limit must be an integer from 1 to ${MAX_TENANT_PAGE}`);
  }
  return { after, limit };
}

/** The checked options of `purge()`: only `dryRun`, a boolean. */
export function purgeOptions(options: PurgeOptions | undefined): { dryRun: boolean } {
  if (options !== undefined && (typeof options !== "object" || options === null)) {
    throw new TypeError("purge() options must be an object");
  }
  const dryRun = options?.dryRun ?? false;
  if (typeof dryRun !== "boolean") throw new TypeError("dryRun must be a boolean");
  return { dryRun };
}

/** The `TypeError` of `purge()` on a store that is not a tenant's scope. */
export function unscopedPurgeError(): TypeError {
  return new TypeError(
    "purge() needs a scoped store (store.scope(tenant)); an unscoped store is never purged whole",
  );
}

/**
 * Byte order of tenant ids. Tenant ids are ASCII (see `checkTenant`), so UTF-16 order is byte order; the
 * function exists so every store sorts the same way.
 */
export function compareTenantIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A page from tenants already in byte order that start after `after`: at most `limit` of them, and `next`
 * when the source had one more (the caller fetches `limit + 1`).
 */
export function tenantPage(sorted: readonly TenantInfo[], limit: number): TenantPage {
  if (sorted.length <= limit) return { tenants: sorted };
  const tenants = sorted.slice(0, limit);
  return { tenants, next: tenants[tenants.length - 1]?.id as string };
}
