/**
 * The table, its indexes, and the functions that run each command in one statement, created on first
 * use. The SQL lives in `sql/table.sql`, `sql/search.sql` (the search index, unless `searchIndex` is
 * false) and `sql/migration.sql` (rows, aggregates and each function are described there); the build
 * embeds them as strings (`sql/*.sql.generated.ts`, written by the package's
 * `generate` script), so the published package reads no file at run time. Paths, tenants and contents
 * only ever reach SQL as bound parameters; the only text put into SQL here is the validated schema and
 * table names, through the files' double-brace placeholders.
 */
import {
  checkIdentifier,
  DEFAULT_SCHEMA,
  DEFAULT_TABLE,
  fn,
  MAX_TABLE_LENGTH,
  type SqlNames,
  sqlNames,
} from "./names.js";
import { text as migration } from "./sql/migration.sql.generated.js";
import { text as search } from "./sql/search.sql.generated.js";
import { text as table } from "./sql/table.sql.generated.js";

/**
 * Bumped by every release that changes what `migrationSql` creates. 2: the `tenant` column holds the
 * chain of scopes (`/`, `/a`, `/a/b`) instead of one flat id (`default` for the unscoped store), and
 * `write` takes the quotas. 3: `list` takes a limit, `view` answers a file or a listing in one statement,
 * and `write` runs at most three statements. 4: the `pg_trgm` search index. 5: the erasure fence that
 * `write`, `delete` and `rename` check. 6: the fence check and the listing run on plans made once per
 * session, a create writes without a look first, and the `utf8` column marks the files read back as text
 * (`write` takes it; a version-5 table gains the column, NULL on its rows, and keeps them). 7: every
 * function the store calls runs on plans made once per session (`plan_cache_mode`), not planned again on
 * each call once the table is analysed. 8: the functions find a file by its path through the primary key
 * also on a table not yet analysed (they scanned every file of the tenant through the access index).
 */
export const SCHEMA_VERSION = 8;

/** `{{ name }}` or `{{ fn("suffix") }}`: Jinja's syntax, so sqlfluff's default templater can render the files. */
const PLACEHOLDER = /\{\{ (\w+)(?:\("(\w+)"\))? \}\}/g;

/** `template` with its placeholders filled for the store named `n`, without the file's final newline. */
const fill = (template: string, n: SqlNames): string =>
  template
    .replace(PLACEHOLDER, (whole, name: string, suffix: string | undefined) => {
      if (name === "fn" && suffix !== undefined) return fn(n, suffix);
      if (suffix === undefined && name === "table") return n.table;
      if (suffix === undefined && name === "bare") return n.bare;
      if (suffix === undefined && name === "schema_version") return String(SCHEMA_VERSION);
      throw new Error(`unknown placeholder ${whole} in the embedded SQL`);
    })
    .trimEnd();

/** The DDL, for the README and for databases where the store may not create tables itself. */
export const tableSql = (n: SqlNames, searchIndex = true): string =>
  searchIndex ? `${fill(table, n)}\n${fill(search, n)}` : fill(table, n);

/** Everything the store needs, idempotent: run inside the migration transaction. */
export const migrationSql = (n: SqlNames, searchIndex = true): string =>
  `${tableSql(n, searchIndex)}\n\n${fill(migration, n)}`;

/** The schema version recorded in the table. */
export const versionSql = (n: SqlNames): string =>
  `SELECT version FROM ${n.table} WHERE tenant = '' AND path = '' AND kind = 'v'`;

/** What `schemaSql` is for: the store's `schema`, `table` and `searchIndex` options. */
export interface SchemaSqlOptions {
  schema?: string;
  table?: string;
  /** `false`: without the `pg_trgm` search index (and without needing the extension). Default `true`. */
  searchIndex?: boolean;
}

/**
 * Everything the store creates on first use (table, indexes, sequence, functions, version row), for a
 * database owner to run when the application's role may not create objects.
 *
 * @example
 * ```ts
 * import { schemaSql } from "@mem/postgres";
 * console.log(schemaSql({ schema: "app", table: "memories" }));
 * ```
 */
export const schemaSql = (options: SchemaSqlOptions = {}): string => {
  if (options.searchIndex !== undefined && typeof options.searchIndex !== "boolean") {
    throw new TypeError("schemaSql: `searchIndex` must be true or false");
  }
  const names = sqlNames(
    checkIdentifier("schema", options.schema ?? DEFAULT_SCHEMA, 63),
    checkIdentifier("table", options.table ?? DEFAULT_TABLE, MAX_TABLE_LENGTH),
  );
  return `BEGIN;\n${migrationSql(names, options.searchIndex ?? true)}\nCOMMIT;\n`;
};
