/**
 * The SQL of `tenants()` and `purge()`. A store's direct tenants are the `tenant` keys `P || id` where `P`
 * is the store's key followed by `/` (just `/` for the unscoped store); their nested tenants' keys follow
 * as `P || id || '/…'`. In the table's byte order (`COLLATE "C"`), everything under `P` lies between `P`
 * and `P` with its last `/` turned into `0`, the next byte.
 */
import type { TenantInfo, TenantPage } from "@mem/core";
import type { SqlNames } from "./names.js";

export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** The key prefix of a store's direct tenants. */
export const childPrefix = (key: string): string => (key === "/" ? "/" : `${key}/`);

/** The first key after every key that starts with `prefix` (which ends with `/`). */
export const prefixEnd = (prefix: string): string => `${prefix.slice(0, -1)}0`;

/**
 * One page of direct tenants: $1 the prefix, $2 its end, $3 the key to start after (the prefix itself for
 * the first page), $4 how many ids to find, $5 the id to start after ('' for the first page).
 *
 * The ids come from a loose index scan of the primary key: each step is one probe for the least key at
 * or above a bound. A key whose tenant id is new gives the next id; a key of an id already given (a
 * nested tenant's row, which can sort after ids like `a.b` since `/` sorts after `.`) moves the bound past
 * that id's whole subtree. So a page costs O(page) index probes whatever the number of tenants and rows.
 * Then per id its totals (the `r` row), whether it has nested tenants, and its newest access.
 */
export const tenantsStatement = (n: SqlNames): Statement => ({
  name: `mem:${n.key}:tenants`,
  text: `WITH RECURSIVE walk(lo, last, id) AS (
    SELECT ($3::text || chr(1)) COLLATE "C", $5::text COLLATE "C", NULL::text COLLATE "C"
    UNION ALL
    SELECT CASE WHEN s.fresh THEN $1 || s.d || chr(1) ELSE $1 || s.d || '0' END,
      CASE WHEN s.fresh THEN s.d ELSE w.last END,
      CASE WHEN s.fresh THEN s.d END
    FROM walk w, LATERAL (
      SELECT d, d > w.last COLLATE "C" AS fresh FROM (
        SELECT split_part(substr(c.k, length($1) + 1), '/', 1) AS d
        FROM (SELECT min(tenant) AS k FROM ${n.table} WHERE tenant >= w.lo AND tenant < $2) c
        WHERE c.k IS NOT NULL
      ) found
    ) s
  ), ids AS (SELECT id FROM walk WHERE id IS NOT NULL LIMIT $4)
  SELECT ids.id AS r_id, r.files AS r_files, r.bytes AS r_bytes,
    EXISTS (SELECT 1 FROM ${n.table} x WHERE x.tenant > $1 || ids.id || '/' AND x.tenant < $1 || ids.id || '0') AS r_nested,
    (SELECT a.accessed_at FROM ${n.table} a WHERE a.tenant = $1 || ids.id AND a.kind = 'f' AND a.accessed_at IS NOT NULL
      ORDER BY a.accessed_at DESC LIMIT 1) AS r_access
  FROM ids LEFT JOIN ${n.table} r ON r.tenant = $1 || ids.id AND r.path = '/memories'
  ORDER BY ids.id COLLATE "C"`,
});

/**
 * Puts the tenant's erasure fence up (migration.sql's `fenced`): committed on its own, before the
 * transaction that deletes the tenant's rows, the fence among them.
 */
export const fenceStatement = (n: SqlNames): Statement => ({
  name: `mem:${n.key}:purge-fence`,
  text: `INSERT INTO ${n.table} (tenant, path, kind) VALUES ($1, '', 'e') ON CONFLICT (tenant, path) DO NOTHING`,
});

/** Locks the tenant's writers out (its `/memories` row, when it has one) until the transaction ends. */
export const lockStatement = (n: SqlNames): Statement => ({
  name: `mem:${n.key}:purge-lock`,
  text: `SELECT 1 FROM ${n.table} WHERE tenant = $1 AND path = '/memories' FOR UPDATE`,
});

/** Every row of the tenant ($1) and of its nested tenants ($2 its prefix, $3 the prefix's end). */
const ROWS = "(tenant = $1 OR (tenant > $2 AND tenant < $3))";

export const countStatement = (n: SqlNames): Statement => ({
  name: `mem:${n.key}:purge-count`,
  text: `SELECT count(*) FILTER (WHERE kind = 'f') AS r_files, coalesce(sum(size) FILTER (WHERE kind = 'f'), 0) AS r_bytes
    FROM ${n.table} WHERE ${ROWS}`,
});

export const deleteStatement = (n: SqlNames): Statement => ({
  name: `mem:${n.key}:purge`,
  text: `WITH gone AS (DELETE FROM ${n.table} WHERE ${ROWS} RETURNING kind, size)
    SELECT count(*) FILTER (WHERE kind = 'f') AS r_files, coalesce(sum(size) FILTER (WHERE kind = 'f'), 0) AS r_bytes FROM gone`,
});

/**
 * The page `tenants()` answers from the rows of `tenantsStatement` (asked for `limit + 1`): tenants that
 * hold files or nested tenants, and `next` when a row beyond the page came back.
 */
export const tenantPageOf = (rows: readonly Record<string, unknown>[], limit: number): TenantPage => {
  const tenants: TenantInfo[] = [];
  for (const row of rows.slice(0, limit)) {
    const files = Number(row["r_files"] ?? 0);
    if (files === 0 && row["r_nested"] !== true) continue;
    const info: TenantInfo = { id: String(row["r_id"]), files, bytes: Number(row["r_bytes"] ?? 0) };
    tenants.push(row["r_access"] === null ? info : { ...info, lastAccess: Number(row["r_access"]) });
  }
  const next = rows.length > limit ? String(rows[limit - 1]?.["r_id"]) : undefined;
  return next === undefined ? { tenants } : { tenants, next };
};
