import { runConformance } from "@mem/conformance";
import { afterAll, beforeAll } from "vitest";
import type { PostgresStore } from "../src/index.js";
import { TestPostgres } from "./helpers.js";

let pg: TestPostgres;

beforeAll(async () => {
  pg = await TestPostgres.start();
});
afterAll(() => pg?.stop());

runConformance<PostgresStore>({
  name: "PostgresStore",
  // A fresh tenant of one shared table for each test.
  create: () => pg.store(),
  // Another store over the same table and tenant, with a pool (and connections) of its own.
  peer: (store) => pg.peer(store),
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => pg.store(expiry),
  // Every row of the table, every column.
  erasure: {
    createIsScoped: true,
    dump: async () =>
      (await pg.sql("SELECT * FROM mem_files")).rows.map((row) => ({
        key: `${row.tenant}\u0000${row.path}\u0000${row.kind}`,
        value: Object.entries(row)
          .map(([k, v]) => `${k}=${Buffer.isBuffer(v) ? v.toString("latin1") : String(v)}`)
          .join("\u0000"),
      })),
  },
});
