/**
 * The D1 store's tables: created with the first use of a binding, or brought from schema 1 (the first
 * release, without directory totals) to the current one.
 */
import { D1_META, D1_MIGRATE_1, D1_SCHEMA } from "./d1-schema.js";
import { fileColumns } from "./d1-tree.js";

/** The part of a D1 binding the store uses (`D1Database` of `@cloudflare/workers-types`). */
export interface D1Like {
  prepare(query: string): D1Statement;
  batch(statements: D1Statement[]): Promise<{ results?: unknown[] }[]>;
}
export interface D1Statement {
  bind(...values: unknown[]): D1Statement;
}

type Row = Record<string, unknown>;

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

export async function createTables(db: D1Like): Promise<void> {
  const [, files] = await db.batch([
    db.prepare(D1_META),
    db.prepare("SELECT name FROM pragma_table_info('mem_files')"),
  ]);
  const columns = ((files?.results ?? []) as Row[]).map((row) => row.name);
  const old = columns.length > 0 && !columns.includes("ancestors");
  if (old) await migrate(db);
  else await db.batch(D1_SCHEMA.map((statement) => db.prepare(statement)));
}

/**
 * Schema 1 (no directory totals): adds the columns, creates the rest, then sets each file's columns
 * with its path rewritten to itself, which fires the trigger that counts it in its directories. One
 * batch, so a concurrent first use sees either schema (a second migration of the same database fails as
 * a whole; the call after it finds the database migrated).
 */
async function migrate(db: D1Like): Promise<void> {
  const [rows] = await db.batch([db.prepare("SELECT tenant, path FROM mem_files")]);
  const files = (rows?.results ?? []) as Row[];
  await db.batch([
    ...D1_MIGRATE_1.map((statement) => db.prepare(statement)),
    ...D1_SCHEMA.map((statement) => db.prepare(statement)),
    ...chunks(files, 500).map((chunk) =>
      db
        .prepare(
          `UPDATE mem_files SET path = mem_files.path, parent = json_extract(j.value, '$[2]'),
             sort = json_extract(j.value, '$[3]'), listed = json_extract(j.value, '$[4]'),
             hid = json_extract(j.value, '$[5]'), ancestors = json_extract(j.value, '$[6]')
           FROM json_each(?1) j
           WHERE mem_files.tenant = json_extract(j.value, '$[0]') AND mem_files.path = json_extract(j.value, '$[1]')`,
        )
        .bind(JSON.stringify(chunk.map((row) => [row.tenant, row.path, ...fileColumns(row.path as string)]))),
    ),
  ]);
}
