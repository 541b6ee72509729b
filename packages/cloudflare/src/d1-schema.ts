/**
 * The tables of the D1 store, shared by every tenant: `mem_files` (one row per file, keyed by the tenant's
 * scope chain and the path), `mem_tenants` (which scope holds which direct tenants, for `tenants()`),
 * `mem_guard` (the checked preconditions of a directory rename, see d1-store.ts) and `mem_meta` (the
 * version counter). Paths and tenants reach SQL only as bound parameters.
 */
export const D1_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS mem_files (
    tenant      TEXT NOT NULL,
    path        TEXT NOT NULL,
    content     BLOB NOT NULL,
    version     INTEGER NOT NULL,
    size        INTEGER NOT NULL,
    accessed_at INTEGER NOT NULL,
    PRIMARY KEY (tenant, path)
  )`,
  "CREATE INDEX IF NOT EXISTS mem_files_access ON mem_files (tenant, accessed_at)",
  "CREATE TABLE IF NOT EXISTS mem_tenants (parent TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (parent, id))",
  "CREATE TABLE IF NOT EXISTS mem_guard (tenant TEXT PRIMARY KEY, ok INTEGER NOT NULL)",
  "CREATE TABLE IF NOT EXISTS mem_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
  "INSERT OR IGNORE INTO mem_meta (key, value) VALUES ('versions', 0)",
];
