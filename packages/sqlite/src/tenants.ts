/**
 * `tenants()` and `purge()` on the database thread. A store's direct tenants have the keys `P + id`, where
 * `P` is the store's key and `/` (nothing for the unscoped store); a tenant's nested tenants follow as
 * `P + id + "/…"`. SQLite compares text byte by byte, so all of them lie in `[P + id + "/", P + id + "0")`.
 */

import type { PurgeResult, TenantInfo, TenantPage } from "@mem/core";
import type Database from "better-sqlite3";

type Sql = (text: string) => Database.Statement;

/**
 * One page of direct tenants by a loose index scan of `(tenant, path)`: each step is one probe for the
 * least key at or above a bound. A key whose id is new gives the next id; a key of an id already given
 * (a nested tenant's row, which can sort after ids like `a.b` since `/` sorts after `.`) moves the bound
 * past that id's subtree. Then per id its totals row, newest access and whether it has nested tenants.
 */
export function listTenants(sql: Sql, key: string, after: string | undefined, limit: number): TenantPage {
  const prefix = key === "" ? "" : `${key}/`;
  const end = key === "" ? null : `${key}0`;
  const next =
    end === null
      ? sql("SELECT min(tenant) AS k FROM mem_files WHERE tenant >= ?")
      : sql("SELECT min(tenant) AS k FROM mem_files WHERE tenant >= ? AND tenant < ?");
  const totals = sql(
    "SELECT files, bytes FROM mem_files WHERE tenant = ? AND path = '/memories' AND kind = 'r'",
  );
  const newest = sql("SELECT max(accessed_at) AS at FROM mem_files WHERE tenant = ? AND kind = 'f'");
  const nested = sql("SELECT 1 AS x FROM mem_files WHERE tenant >= ? AND tenant < ? LIMIT 1");
  let lo = `${prefix}${after ?? ""}\u0001`;
  let last = after ?? "";
  const ids: string[] = [];
  while (ids.length <= limit) {
    const row = (end === null ? next.get(lo) : next.get(lo, end)) as { k: string | null } | undefined;
    if (!row?.k) break;
    const id = row.k.slice(prefix.length).split("/", 1)[0]!;
    if (id > last) {
      ids.push(id);
      last = id;
      lo = `${prefix}${id}\u0001`;
    } else {
      lo = `${prefix}${id}0`;
    }
  }
  const tenants: TenantInfo[] = [];
  for (const id of ids.slice(0, limit)) {
    const own = `${prefix}${id}`;
    const row = totals.get(own) as { files: number; bytes: number } | undefined;
    const files = row?.files ?? 0;
    if (files === 0 && !nested.get(`${own}/`, `${own}0`)) continue;
    const at = (newest.get(own) as { at: number | null } | undefined)?.at ?? null;
    const info = { id, files, bytes: row?.bytes ?? 0 };
    tenants.push(at === null ? info : { ...info, lastAccess: at });
  }
  const page: TenantPage = ids.length > limit ? { tenants, next: ids[limit - 1]! } : { tenants };
  return page;
}

/**
 * Deletes every row of the tenant `key` and of its nested tenants; the connection's `secure_delete`
 * (on since it was prepared, for every write, so earlier contents freed by edits are gone too) zeroes
 * what they held (see the README's Erasure for the write-ahead log). Runs inside the request's
 * transaction: all or nothing.
 */
export function purgeTenant(db: Database.Database, sql: Sql, key: string, dryRun: boolean): PurgeResult {
  const rows = "(tenant = ? OR (tenant >= ? AND tenant < ?))";
  const args = [key, `${key}/`, `${key}0`];
  const counted = sql(
    `SELECT count(*) AS files, coalesce(sum(size), 0) AS bytes FROM mem_files WHERE kind = 'f' AND ${rows}`,
  ).get(...args) as { files: number; bytes: number };
  if (dryRun) return { files: counted.files, bytes: counted.bytes };
  // Again here, in case the application turned it off on a database it gave the store.
  db.pragma("secure_delete = ON");
  sql(`DELETE FROM mem_files WHERE ${rows}`).run(...args);
  return { files: counted.files, bytes: counted.bytes };
}
