/**
 * The erasure fence in the database file (SPEC §7), so it holds for every process and every wrapper
 * writing to it. A purge first commits a fence row for its tenant, then, in a second transaction, deletes
 * the tenant's rows and the fence. Every write (create, str_replace, insert, delete, rename) looks, inside
 * its own transaction, for a fence of its tenant or of a tenant it is nested in, and is refused while one is
 * up. A purge that crashed leaves its fence up (the tenant refuses writes); running the purge again erases
 * the tenant and removes it. The row holds the tenant's key, so it goes with the purge: nothing names the
 * tenant afterwards.
 */
import type Database from "better-sqlite3";

type Sql = (text: string) => Database.Statement;

/** Puts the fence of tenant `key` up. Commits in a transaction of its own, before the purge's. */
export const raiseFence = (sql: Sql, key: string): void => {
  sql("INSERT OR IGNORE INTO mem_fences (tenant) VALUES (?)").run(key);
};

/** Removes the fences of tenant `key` and of its nested tenants, in the purge's transaction. */
export const lowerFence = (sql: Sql, key: string): void => {
  sql("DELETE FROM mem_fences WHERE tenant = ? OR (tenant >= ? AND tenant < ?)").run(
    key,
    `${key}/`,
    `${key}0`,
  );
};

/** Whether tenant `key`, or a tenant it is nested in, is fenced. */
export const fenced = (sql: Sql, key: string): boolean =>
  sql(
    "SELECT 1 FROM mem_fences WHERE tenant = ? OR substr(?, 1, length(tenant) + 1) = tenant || '/' LIMIT 1",
  ).get(key, key) !== undefined;
