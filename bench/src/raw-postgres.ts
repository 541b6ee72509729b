/**
 * The raw `pg` baseline: one row per file in one table, SELECT for views, SELECT + UPDATE for edits (no
 * version check, no transaction), INSERT ... ON CONFLICT DO NOTHING for creates, UPDATE of the key for
 * renames, DELETE, and a prefix range scan with length() for directory views (the commands: raw-rows.ts).
 */
import type pg from "pg";
import type { PgCounters } from "./pg-counters.js";
import { rowsTool } from "./raw-rows.js";
import type { Backend, Tool } from "./subject.js";

const TABLE = "raw_files";

export const rawPgTool = (pool: pg.Pool, ns: string): Tool => {
  const q = (name: string, text: string, values: unknown[]) => pool.query({ name, text, values });
  return rowsTool({
    read: async (path) =>
      ((await q("raw-read", `SELECT content FROM ${TABLE} WHERE ns = $1 AND path = $2`, [ns, path])).rows[0]
        ?.content as string | undefined) ?? null,
    write: async (path, text) => {
      await q("raw-update", `UPDATE ${TABLE} SET content = $3 WHERE ns = $1 AND path = $2`, [ns, path, text]);
    },
    insert: async (path, text) =>
      Boolean(
        (
          await q(
            "raw-create",
            `INSERT INTO ${TABLE} (ns, path, content) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
            [ns, path, text],
          )
        ).rowCount,
      ),
    remove: async (path) =>
      Boolean(
        (await q("raw-delete", `DELETE FROM ${TABLE} WHERE ns = $1 AND path = $2`, [ns, path])).rowCount,
      ),
    move: async (from, to) =>
      Boolean(
        (
          await q(
            "raw-rename",
            `UPDATE ${TABLE} SET path = $3 WHERE ns = $1 AND path = $2
             AND NOT EXISTS (SELECT 1 FROM ${TABLE} WHERE ns = $1 AND path = $3)`,
            [ns, from, to],
          )
        ).rowCount,
      ),
    range: async (from, to) => {
      const { rows } = await q(
        "raw-list",
        `SELECT path, octet_length(content) AS size FROM ${TABLE}
        WHERE ns = $1 AND path >= $2 AND path < $3 ORDER BY path`,
        [ns, from, to],
      );
      return (rows as Array<{ path: string; size: number }>).map((row) => ({
        path: row.path,
        size: Number(row.size),
      }));
    },
  });
};

/** The raw baseline's table (one row per file, keyed by namespace and path). */
export const rawPgTableSql = `CREATE TABLE IF NOT EXISTS ${TABLE} (ns text NOT NULL, path text COLLATE "C" NOT NULL,
  content text NOT NULL, PRIMARY KEY (ns, path))`;

export const RAW_PG_TABLE = TABLE;

export const rawPostgresBackend = async (counters: PgCounters): Promise<Backend> => {
  const setup = counters.pool();
  await setup.query(rawPgTableSql);
  return {
    // One pool (one connection) per tool instance, as separate processes would have.
    async open(ns) {
      return rawPgTool(counters.pool(), `raw-${ns}`);
    },
    requestCounters: () => counters.totals(),
    async close() {
      await counters.close();
    },
  };
};
