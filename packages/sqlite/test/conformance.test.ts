import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { runConformance } from "@mem/conformance";
import Database from "better-sqlite3";
import { SqliteStore } from "../src/index.js";
import { freshPath } from "./helpers.js";

const destroy = async (store: SqliteStore) => {
  await store.close();
  if (store.path) rmSync(dirname(store.path), { recursive: true, force: true });
};

runConformance({
  name: "SqliteStore",
  create: () => new SqliteStore({ path: freshPath() }),
  // A second connection on its own thread, as another process would have.
  peer: (store) => new SqliteStore({ path: store.path! }),
  destroy,
  tenants: true,
  createExpiring: (expiry) => new SqliteStore({ path: freshPath(), ...expiry }),
  // Every row of every table, read on a connection of its own.
  erasure: {
    dump: async (store) => {
      const db = new Database(store.path!, { readonly: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
          name: string;
        }[];
        return tables.flatMap(({ name }) =>
          (db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]).map((row) => {
            const cells = Object.entries(row).map(
              ([k, v]) => `${k}=${Buffer.isBuffer(v) ? v.toString("latin1") : String(v)}`,
            );
            return {
              key: `${name}\u0000${String(row.tenant)}\u0000${String(row.path)}`,
              value: cells.join("\u0000"),
            };
          }),
        );
      } finally {
        db.close();
      }
    },
  },
});

// The application's own handle, used on the calling thread.
const handles = new WeakMap<SqliteStore, Database.Database>();
runConformance({
  name: "SqliteStore over an open database",
  create: () => {
    const database = new Database(freshPath());
    const store = new SqliteStore({ database });
    handles.set(store, database);
    return store;
  },
  peer: (store) => new SqliteStore({ path: handles.get(store)!.name }),
  destroy: (store) => {
    const database = handles.get(store)!;
    database.close();
    rmSync(dirname(database.name), { recursive: true, force: true });
  },
  tenants: true,
});
