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
