/**
 * The raw `pg` baseline: one row per file in one table, SELECT for views, SELECT + UPDATE for edits (no
 * version check, no transaction), INSERT ... ON CONFLICT DO NOTHING for creates, UPDATE of the key for
 * renames, DELETE, and a prefix range scan with length() for directory views.
 */
import type pg from "pg";
import type { PgCounters } from "./pg-counters.js";
import { fail, guarded, listingText, ok, sliceLines } from "./raw-text.js";
import { type Backend, relativeOf, type Tool, type ToolInput, type ToolOutcome } from "./subject.js";

const TABLE = "raw_files";

export const rawPgTool = (pool: pg.Pool, ns: string): Tool => {
  const q = (name: string, text: string, values: unknown[]) => pool.query({ name, text, values });
  const read = async (path: string): Promise<string | null> =>
    ((await q("raw-read", `SELECT content FROM ${TABLE} WHERE ns = $1 AND path = $2`, [ns, path])).rows[0]
      ?.content as string | undefined) ?? null;
  const write = (path: string, text: string) =>
    q("raw-update", `UPDATE ${TABLE} SET content = $3 WHERE ns = $1 AND path = $2`, [ns, path, text]);
  const list = async (path: string): Promise<string> => {
    const prefix = relativeOf(path) === "" ? "/memories/" : `${path}/`;
    const { rows } = await q(
      "raw-list",
      `SELECT path, octet_length(content) AS size FROM ${TABLE}
        WHERE ns = $1 AND path >= $2 AND path < $3 ORDER BY path`,
      [ns, prefix, `${prefix.slice(0, -1)}0`],
    );
    const entries = new Map<string, number>();
    for (const row of rows as Array<{ path: string; size: number }>) {
      const parts = row.path.slice(prefix.length).split("/");
      if (parts.length > 2) {
        entries.set(`${path}/${parts[0]}/`, 0);
        entries.set(`${path}/${parts[0]}/${parts[1]}/`, 0);
      } else {
        if (parts.length === 2) entries.set(`${path}/${parts[0]}/`, 0);
        entries.set(row.path, Number(row.size));
      }
    }
    return listingText(
      path,
      [...entries].map(([p, size]) => ({ path: p, size })),
    );
  };
  const run = async (input: ToolInput): Promise<ToolOutcome> => {
    const path = String(input["path"] ?? input["old_path"]);
    switch (input["command"]) {
      case "view": {
        const text = relativeOf(path) === "" ? null : await read(path);
        if (text !== null) return ok(sliceLines(text, input["view_range"]));
        return ok(await list(path));
      }
      case "create": {
        const result = await q(
          "raw-create",
          `INSERT INTO ${TABLE} (ns, path, content) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
          [ns, path, String(input["file_text"])],
        );
        return result.rowCount ? ok("created") : fail("exists");
      }
      case "str_replace": {
        const text = await read(path);
        const oldStr = String(input["old_str"]);
        if (text === null || !text.includes(oldStr)) return fail("no match");
        await write(
          path,
          text.replace(oldStr, () => String(input["new_str"] ?? "")),
        );
        return ok("edited");
      }
      case "insert": {
        const text = await read(path);
        if (text === null) return fail("missing");
        const lines = text.split("\n");
        lines.splice(Number(input["insert_line"]), 0, String(input["insert_text"]).replace(/\n$/, ""));
        await write(path, lines.join("\n"));
        return ok("edited");
      }
      case "delete": {
        const result = await q("raw-delete", `DELETE FROM ${TABLE} WHERE ns = $1 AND path = $2`, [ns, path]);
        return result.rowCount ? ok("deleted") : fail("missing");
      }
      case "rename": {
        const result = await q(
          "raw-rename",
          `UPDATE ${TABLE} SET path = $3 WHERE ns = $1 AND path = $2
             AND NOT EXISTS (SELECT 1 FROM ${TABLE} WHERE ns = $1 AND path = $3)`,
          [ns, path, String(input["new_path"])],
        );
        return result.rowCount ? ok("renamed") : fail("exists");
      }
      default:
        return fail("unknown command");
    }
  };
  return { exec: guarded(run), readText: read };
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
