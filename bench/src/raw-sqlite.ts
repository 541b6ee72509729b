/**
 * The raw better-sqlite3 baseline: one row per file in one table of one database file, with the
 * durability SqliteStore asks for (WAL, synchronous = FULL), prepared statements, each a single
 * autocommit statement (no version check, no transaction around a read and its write); the commands
 * are raw-rows.ts's.
 */
import Database from "better-sqlite3";
import { rowsTool } from "./raw-rows.js";
import type { Tool } from "./subject.js";

export const RAW_SQLITE_TABLE = "raw_files";

/** The database at `path` (created), holding every namespace; `tool(ns)` works on one of them. */
export const rawSqlite = (path: string): { tool(ns: string): Tool; close(): void } => {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec(`CREATE TABLE IF NOT EXISTS ${RAW_SQLITE_TABLE} (ns TEXT NOT NULL, path TEXT NOT NULL,
    content TEXT NOT NULL, PRIMARY KEY (ns, path)) WITHOUT ROWID`);
  const read = db.prepare<[string, string], { content: string }>(
    `SELECT content FROM ${RAW_SQLITE_TABLE} WHERE ns = ? AND path = ?`,
  );
  const update = db.prepare(`UPDATE ${RAW_SQLITE_TABLE} SET content = ? WHERE ns = ? AND path = ?`);
  const insert = db.prepare(`INSERT OR IGNORE INTO ${RAW_SQLITE_TABLE} (ns, path, content) VALUES (?, ?, ?)`);
  const remove = db.prepare(`DELETE FROM ${RAW_SQLITE_TABLE} WHERE ns = ? AND path = ?`);
  const move = db.prepare(`UPDATE ${RAW_SQLITE_TABLE} SET path = ? WHERE ns = ? AND path = ?
    AND NOT EXISTS (SELECT 1 FROM ${RAW_SQLITE_TABLE} WHERE ns = ? AND path = ?)`);
  const range = db.prepare<[string, string, string], { path: string; size: number }>(
    `SELECT path, length(CAST(content AS BLOB)) AS size FROM ${RAW_SQLITE_TABLE}
      WHERE ns = ? AND path >= ? AND path < ? ORDER BY path`,
  );
  return {
    tool: (ns) =>
      rowsTool({
        read: async (path) => read.get(ns, path)?.content ?? null,
        write: async (path, text) => {
          update.run(text, ns, path);
        },
        insert: async (path, text) => insert.run(ns, path, text).changes > 0,
        remove: async (path) => remove.run(ns, path).changes > 0,
        move: async (from, to) => move.run(to, ns, from, ns, to).changes > 0,
        range: async (from, to) => range.all(ns, from, to),
      }),
    close: () => db.close(),
  };
};
