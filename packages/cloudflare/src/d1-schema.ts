/**
 * The tables of the D1 store, shared by every tenant. Paths and tenants reach SQL only as bound
 * parameters.
 *
 * - `mem_files`: one row per file, keyed by the tenant's scope chain and the path. Each row also carries
 *   what its directories' totals need: `parent`, `sort` (the name in UTF-16BE as hex, so text order is
 *   view's sibling order), `listed` (the name is shown), `hid` (the 1-based level of the deepest hidden
 *   or `node_modules` name in the path, 0 for none: the file counts in the totals of the ancestors at
 *   levels `hid` and below) and `ancestors` (JSON `[[path, sort, listed], ...]` from `/memories` down to
 *   the parent; entry k is the ancestor at level k).
 * - `mem_dirs`: one row per directory that holds files (and `/memories` itself), kept by the triggers
 *   below from the file rows: `files` (every file beneath), `size` and `shown` (the listed files beneath,
 *   relative to the directory: what view shows), `kids` (listed entries directly in it) and `kids2`
 *   (listed entries within two levels). So a listing reads the rows it shows and counts the rest.
 * - `mem_tenants` (which scope holds which direct tenants, for `tenants()`), `mem_guard` (the checked
 *   preconditions of a directory rename, see d1-store.ts), `mem_fences` (tenants being erased) and
 *   `mem_meta` (the version counter and the schema's version).
 */

/** Bumped when what `D1_SCHEMA` creates changes (2: directory totals, the erasure fence). */
export const D1_SCHEMA_VERSION = 2;

/** The statements that count file `x` (`NEW` or `OLD`) in, or out of, its directories. */
const addFile = (x: string): string[] => [
  `INSERT INTO mem_dirs (tenant, path, parent, sort, listed, depth, files, size, shown, kids, kids2)
   SELECT ${x}.tenant, json_extract(a.value, '$[0]'),
     CASE WHEN a.key = 0 THEN NULL ELSE json_extract(${x}.ancestors, '$[' || (a.key - 1) || '][0]') END,
     json_extract(a.value, '$[1]'), json_extract(a.value, '$[2]'), a.key, 1,
     CASE WHEN ${x}.hid <= a.key THEN ${x}.size ELSE 0 END, CASE WHEN ${x}.hid <= a.key THEN 1 ELSE 0 END, 0, 0
   FROM json_each(${x}.ancestors) a WHERE true
   ON CONFLICT (tenant, path) DO UPDATE SET files = files + 1, size = size + excluded.size,
     shown = shown + excluded.shown`,
  `UPDATE mem_dirs SET kids = kids + 1 WHERE tenant = ${x}.tenant AND path = ${x}.parent AND ${x}.listed = 1`,
];

const ancestorPaths = (x: string): string =>
  `(SELECT json_extract(value, '$[0]') FROM json_each(${x}.ancestors))`;

const removeFile = (x: string): string[] => [
  `UPDATE mem_dirs SET files = files - 1,
     size = size - CASE WHEN ${x}.hid <= depth THEN ${x}.size ELSE 0 END,
     shown = shown - CASE WHEN ${x}.hid <= depth THEN 1 ELSE 0 END
   WHERE tenant = ${x}.tenant AND path IN ${ancestorPaths(x)}`,
  `UPDATE mem_dirs SET kids = kids - 1 WHERE tenant = ${x}.tenant AND path = ${x}.parent AND ${x}.listed = 1`,
  `DELETE FROM mem_dirs WHERE tenant = ${x}.tenant AND path IN ${ancestorPaths(x)} AND files = 0`,
];

const trigger = (name: string, event: string, body: string[]): string =>
  `CREATE TRIGGER IF NOT EXISTS ${name} ${event} BEGIN ${body.map((s) => `${s};`).join(" ")} END`;

export const D1_SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS mem_files (
    tenant      TEXT NOT NULL,
    path        TEXT NOT NULL,
    content     BLOB NOT NULL,
    version     INTEGER NOT NULL,
    size        INTEGER NOT NULL,
    accessed_at INTEGER NOT NULL,
    parent      TEXT NOT NULL DEFAULT '',
    sort        TEXT NOT NULL DEFAULT '',
    listed      INTEGER NOT NULL DEFAULT 1,
    hid         INTEGER NOT NULL DEFAULT 0,
    ancestors   TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (tenant, path)
  )`,
  "CREATE INDEX IF NOT EXISTS mem_files_access ON mem_files (tenant, accessed_at)",
  "CREATE INDEX IF NOT EXISTS mem_files_children ON mem_files (tenant, parent, listed, sort)",
  `CREATE TABLE IF NOT EXISTS mem_dirs (
    tenant TEXT NOT NULL,
    path   TEXT NOT NULL,
    parent TEXT,
    sort   TEXT NOT NULL,
    listed INTEGER NOT NULL,
    depth  INTEGER NOT NULL,
    files  INTEGER NOT NULL,
    size   INTEGER NOT NULL,
    shown  INTEGER NOT NULL,
    kids   INTEGER NOT NULL,
    kids2  INTEGER NOT NULL,
    PRIMARY KEY (tenant, path)
  )`,
  "CREATE INDEX IF NOT EXISTS mem_dirs_children ON mem_dirs (tenant, parent, listed, sort)",
  trigger("mem_files_added", "AFTER INSERT ON mem_files", addFile("NEW")),
  trigger("mem_files_removed", "AFTER DELETE ON mem_files", removeFile("OLD")),
  trigger("mem_files_moved", "AFTER UPDATE OF path ON mem_files", [...removeFile("OLD"), ...addFile("NEW")]),
  trigger("mem_files_resized", "AFTER UPDATE OF size ON mem_files WHEN OLD.path = NEW.path", [
    `UPDATE mem_dirs SET size = size + CASE WHEN NEW.hid <= depth THEN NEW.size - OLD.size ELSE 0 END
     WHERE tenant = NEW.tenant AND path IN ${ancestorPaths("NEW")}`,
  ]),
  trigger("mem_dirs_added", "AFTER INSERT ON mem_dirs WHEN NEW.listed = 1 AND NEW.parent IS NOT NULL", [
    "UPDATE mem_dirs SET kids = kids + 1 WHERE tenant = NEW.tenant AND path = NEW.parent",
  ]),
  trigger("mem_dirs_removed", "AFTER DELETE ON mem_dirs WHEN OLD.listed = 1 AND OLD.parent IS NOT NULL", [
    "UPDATE mem_dirs SET kids = kids - 1, kids2 = kids2 - OLD.kids WHERE tenant = OLD.tenant AND path = OLD.parent",
  ]),
  // kids2 of a directory: its own kids and those of its listed child directories.
  trigger("mem_dirs_kids", "AFTER UPDATE OF kids ON mem_dirs", [
    `UPDATE mem_dirs SET kids2 = kids2 + NEW.kids - OLD.kids
     WHERE tenant = NEW.tenant AND (path = NEW.path OR (NEW.listed = 1 AND path = NEW.parent))`,
  ]),
  "CREATE TABLE IF NOT EXISTS mem_tenants (parent TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (parent, id))",
  "CREATE TABLE IF NOT EXISTS mem_guard (tenant TEXT PRIMARY KEY, ok INTEGER NOT NULL)",
  "CREATE TABLE IF NOT EXISTS mem_fences (tenant TEXT PRIMARY KEY)",
  "INSERT OR IGNORE INTO mem_meta (key, value) VALUES ('versions', 0)",
  `INSERT OR REPLACE INTO mem_meta (key, value) VALUES ('schema', ${D1_SCHEMA_VERSION})`,
];

/** Created first, and read to decide whether the rest must be created or migrated. */
export const D1_META = "CREATE TABLE IF NOT EXISTS mem_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)";

/** The columns a version 1 `mem_files` lacks, added before `D1_SCHEMA` runs on such a database. */
export const D1_MIGRATE_1: readonly string[] = [
  "ALTER TABLE mem_files ADD COLUMN parent TEXT NOT NULL DEFAULT ''",
  "ALTER TABLE mem_files ADD COLUMN sort TEXT NOT NULL DEFAULT ''",
  "ALTER TABLE mem_files ADD COLUMN listed INTEGER NOT NULL DEFAULT 1",
  "ALTER TABLE mem_files ADD COLUMN hid INTEGER NOT NULL DEFAULT 0",
  "ALTER TABLE mem_files ADD COLUMN ancestors TEXT NOT NULL DEFAULT '[]'",
];
