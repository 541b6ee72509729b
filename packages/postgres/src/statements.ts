/**
 * The statements a store sends, by name: each is prepared once per connection and run again by name
 * (the name says which table it is for). Writes, expiring reads and the tenant's lock call the store's
 * functions (sql/migration.sql); reads and listings without expiry are plain statements, planned once per
 * connection and run without a PL/pgSQL call.
 */
import { contentColumns } from "./content.js";
import { fn, type SqlNames } from "./names.js";
import { versionSql } from "./schema.js";
import { searchSql } from "./search.js";
import type { Statement } from "./tenants.js";

export type { Statement };

/**
 * The test that row `x` is a file, for statements that find a row by its path. Written as a cast so that
 * the planner cannot answer a lookup by path from the access index (partial, `WHERE kind = 'f'`): on a
 * table not yet analysed it judges that index tiny (a default 0.5% of rows for `kind = 'f'`) and, in the
 * plans made once per session, scans every file of the tenant with it instead of one probe of the
 * primary key. The function bodies (sql/migration.sql) write the same test.
 */
export const IS_FILE = "x.kind::text = 'f'";

export type Statements = ReturnType<typeof statements>;

/**
 * A listing without expiry in one plain statement ($1 tenant, $2 directory, $3 depth, $4 limit or NULL),
 * the same rows as the `list` function (the directory's own row first, with the entries left out in
 * `r_omitted`, then its entries) but planned once per connection and run without a PL/pgSQL call: a
 * recursive walk down the children index, level by level, skipping hidden names. With a limit, only the
 * first entries in view's order are sent, unless a name holds a character from U+E000 up (code point
 * order then differs from view's UTF-16 order, and every entry is sent for the caller to order). View's
 * order (depth first, siblings by name) is the byte order of the path with each `/` turned into U+0001,
 * which sorts before any character a name may hold (control characters are refused in paths): one byte
 * comparison per pair instead of comparing arrays of names, which took most of a large listing's time.
 */
const listingSql = (n: SqlNames): string => {
  const hidden = fn(n, "hidden");
  return `WITH RECURSIVE walk(path, kind, size, depth) AS (
      SELECT x.path, x.kind, x.size, 1 FROM ${n.table} x
       WHERE $3::int >= 1 AND x.tenant = $1::text AND x.parent = $2::text
         AND NOT ${hidden}(substr(x.path, length(x.parent) + 2))
      UNION ALL
      SELECT x.path, x.kind, x.size, w.depth + 1 FROM walk w JOIN ${n.table} x ON x.tenant = $1::text AND x.parent = w.path
       WHERE w.kind = 'd' AND w.depth < $3::int AND NOT ${hidden}(substr(x.path, length(x.parent) + 2))
    ), head AS (
      SELECT coalesce((SELECT x.size FROM ${n.table} x WHERE x.tenant = $1::text AND x.path = $2::text AND x.kind IN ('d', 'r')),
                      CASE WHEN $2::text = '/memories' THEN 0 END) AS size,
             (SELECT count(*) FROM walk) AS total,
             EXISTS (SELECT 1 FROM walk w WHERE w.path ~ '[\\uE000-\\U0010FFFF]') AS odd
    )
    SELECT $2::text AS r_path, 'd'::"char" AS r_kind, h.size AS r_size, 0 AS r_depth,
           CASE WHEN $4::int IS NULL OR h.odd OR h.total <= $4::int THEN 0 ELSE h.total - $4::int END AS r_omitted,
           0::bigint AS r_rank
      FROM head h WHERE h.size IS NOT NULL
    UNION ALL
    SELECT s.path, s.kind, s.size, s.depth, 0, s.rank FROM head h, (
      SELECT w.*, row_number() OVER (ORDER BY translate(w.path, '/', chr(1)) COLLATE "C") AS rank FROM walk w
    ) s
     WHERE h.size IS NOT NULL AND ($4::int IS NULL OR h.odd OR s.rank <= $4::int)
    ORDER BY r_rank`;
};

export const statements = (n: SqlNames) => {
  const f = (suffix: string) => fn(n, suffix);
  // Named statements are parsed once per connection; the name says which table they are for.
  const named = (name: string, text: string): Statement => ({ name: `mem:${n.key}:${name}`, text });
  return {
    read: named(
      "read",
      `SELECT ${contentColumns("")}, x.version FROM ${n.table} x
        WHERE x.tenant = $1 AND x.path = $2 AND ${IS_FILE}`,
    ),
    // What a window of lines needs: the file's size, a token naming this content for good (the table's
    // oid, which a table made again does not keep, and the version, from a sequence), whether it is a UTF-8
    // file (else the caller reads it whole) and its text, unless the caller holds it already ($3: the
    // token it holds it for, '' for none).
    readText: named(
      "read-text",
      `SELECT x.size AS r_size, x.tableoid::text || '/' || x.version AS r_token,
              x.utf8 AND current_setting('server_encoding') = 'UTF8' AS r_textual,
              CASE WHEN x.utf8 AND current_setting('server_encoding') = 'UTF8'
                        AND x.tableoid::text || '/' || x.version <> $3
                   THEN convert_from(x.content, 'UTF8') END AS r_text
        FROM ${n.table} x
        WHERE x.tenant = $1 AND x.path = $2 AND ${IS_FILE}`,
    ),
    readTouch: named(
      "read-touch",
      `UPDATE ${n.table} x SET accessed_at = $3
        WHERE x.tenant = $1 AND x.path = $2 AND ${IS_FILE} AND x.accessed_at >= $4
        RETURNING ${contentColumns("")}, x.version`,
    ),
    stat: named(
      "stat",
      `SELECT kind AS r_kind, size AS r_size FROM ${n.table}
        WHERE tenant = $1 AND path = $2 AND kind IN ('f', 'd')`,
    ),
    statExpiring: named("stat-expiring", `SELECT r_kind, r_size FROM ${f("stat")}($1, $2, $3)`),
    list: named("list", `SELECT r_path, r_kind, r_size, r_depth, r_omitted FROM (${listingSql(n)}) l`),
    listExpiring: named(
      "list-expiring",
      `SELECT r_path, r_kind, r_size, r_depth, r_omitted FROM ${f("list")}($1, $2, $3, $4, $5)`,
    ),
    // Without expiry a view reads without a function call of its own: the file's row, or else (a one-time
    // filter, so the listing runs only when there is no file) the listing. Same snapshot for both.
    view: named(
      "view",
      `SELECT $2::text AS r_path, 'f'::"char" AS r_kind, NULL::bigint AS r_size, NULL::int AS r_depth,
              NULL::bigint AS r_omitted, ${contentColumns("r_")}, x.version AS r_version
         FROM ${n.table} x WHERE x.tenant = $1 AND x.path = $2 AND ${IS_FILE}
       UNION ALL
       SELECT l.r_path, l.r_kind, l.r_size, l.r_depth, l.r_omitted, NULL, NULL, NULL
         FROM (${listingSql(n)}) l
        WHERE NOT EXISTS (SELECT 1 FROM ${n.table} x WHERE x.tenant = $1 AND x.path = $2 AND ${IS_FILE})`,
    ),
    viewExpiring: named(
      "view-expiring",
      `SELECT r_path, r_kind, r_size, r_depth, r_omitted, NULL::text AS r_text, r_content, r_version
         FROM ${f("view")}($1, $2, $3, $4, $5, $6)`,
    ),
    write: named(
      "write",
      `SELECT r_status, r_detail FROM ${f("write")}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    ),
    delete: named("delete", `SELECT ${f("delete")}($1, $2, $3) AS deleted`),
    lock: named("lock", `SELECT ${f("lock")}($1)`),
    rename: named("rename", `SELECT r_status, r_detail FROM ${f("rename")}($1, $2, $3, $4, $5, $6)`),
    usage: named(
      "usage",
      `SELECT files AS r_files, bytes AS r_bytes FROM ${n.table} WHERE tenant = $1 AND path = '/memories'`,
    ),
    usageExpiring: named("usage-expiring", `SELECT r_files, r_bytes FROM ${f("usage")}($1, $2)`),
    sweep: named("sweep", `SELECT r_path, r_size FROM ${f("sweep")}($1, $2)`),
    files: named(
      "files",
      `SELECT path AS r_path, size AS r_size FROM ${n.table}
       WHERE tenant = $1 AND kind = 'f' AND ($2::bigint IS NULL OR accessed_at >= $2) ORDER BY path`,
    ),
    version: named("version", versionSql(n)),
    // Unnamed: planned for each pattern, so that the planner sees how selective it is.
    search: { name: "", text: searchSql(n) },
  };
};
