/**
 * The table every tenant shares, its indexes and the schema version, created or migrated on first use.
 *
 * Rows: `f` a file, `d` a directory (kept while files lie beneath it), `r` a tenant's `/memories` (its
 * totals). Aggregates: for `d` and `r` rows, `files` and `bytes` count every file beneath, `size` and
 * `shown` only the listed ones (SPEC §4: nothing under a hidden or `node_modules` name, relative to that
 * directory); for `f` rows `files` = `shown` = 1 and `size` = `bytes` = the content's length. So a listing
 * reads the rows it shows and `usage()` reads one row.
 *
 * `tenant` is the scope chain joined by `/` (`""` for the unscoped store, `a/b` for `scope("a").scope("b")`):
 * tenant ids never hold `/`, so every chain has one key. `sort` is the entry's name in UTF-16BE, so byte
 * order is view's sibling order (UTF-16 code units), which UTF-8 text order is not.
 *
 * `mem_search` (search.ts) indexes the text of every `f` row, kept by triggers.
 *
 * `mem_fences` holds the erasure fence of each tenant being purged, or whose purge crashed (fence.ts).
 */
import type Database from "better-sqlite3";
import { BACKFILL_SQL, SEARCH_SQL } from "./search.js";

/** Bumped by every release that changes what `migrate` creates (2: the search index, 3: the fences). */
export const SCHEMA_VERSION = 3;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS mem_meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS mem_files (
  id          INTEGER PRIMARY KEY,
  tenant      TEXT NOT NULL,
  path        TEXT NOT NULL,
  parent      TEXT,
  sort        BLOB,
  listed      INTEGER NOT NULL DEFAULT 1,
  kind        TEXT NOT NULL,
  content     BLOB,
  version     INTEGER NOT NULL DEFAULT 0,
  size        INTEGER NOT NULL DEFAULT 0,
  shown       INTEGER NOT NULL DEFAULT 0,
  files       INTEGER NOT NULL DEFAULT 0,
  bytes       INTEGER NOT NULL DEFAULT 0,
  accessed_at INTEGER
);
CREATE UNIQUE INDEX IF NOT EXISTS mem_files_path ON mem_files (tenant, path);
CREATE INDEX IF NOT EXISTS mem_files_children ON mem_files (tenant, parent, listed, sort);
CREATE INDEX IF NOT EXISTS mem_files_access ON mem_files (tenant, accessed_at) WHERE kind = 'f';
CREATE TABLE IF NOT EXISTS mem_fences (
  tenant TEXT PRIMARY KEY
) WITHOUT ROWID;
INSERT OR IGNORE INTO mem_meta (key, value) VALUES ('versions', 0);
`;

/** Thrown when the database was made by a newer release: this one must not write to it. */
export class NewerSchemaError extends Error {
  constructor() {
    super("the database was created by a newer release of @mem/sqlite");
    this.name = "NewerSchemaError";
  }
}

const readVersion = (db: Database.Database): number => {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'mem_meta'").get();
  if (!table) return 0;
  // A number even on a database whose application turned `defaultSafeIntegers` on.
  const row = db.prepare("SELECT value FROM mem_meta WHERE key = 'schema'").safeIntegers(false).get() as
    | { value: number }
    | undefined;
  return row?.value ?? 0;
};

/**
 * Brings the database to `SCHEMA_VERSION`: one read when it is there already, otherwise the DDL in one
 * write transaction, so processes opening a new file together create it once.
 */
export const migrate = (db: Database.Database): void => {
  const found = readVersion(db);
  if (found === SCHEMA_VERSION) return;
  if (found > SCHEMA_VERSION) throw new NewerSchemaError();
  db.exec("BEGIN IMMEDIATE");
  try {
    const current = readVersion(db);
    if (current > SCHEMA_VERSION) throw new NewerSchemaError();
    if (current < SCHEMA_VERSION) {
      db.exec(SCHEMA_SQL);
      db.exec(SEARCH_SQL);
      if (current < 2) db.exec(BACKFILL_SQL);
      db.prepare("INSERT OR REPLACE INTO mem_meta (key, value) VALUES ('schema', ?)").run(SCHEMA_VERSION);
    }
    db.exec("COMMIT");
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
};
