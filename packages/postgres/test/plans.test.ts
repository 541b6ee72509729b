/**
 * Commands run on plans made once per session. Once autovacuum has analysed a table of some hundred
 * tenants, PostgreSQL's plan cache judged the statements inside the store's functions cheaper with their
 * parameters folded in (a custom plan) and planned them again on every call: one planning per write,
 * rename and delete, about a fifth of the server's CPU under load. `debug_print_plan` reports every
 * planning to the client, so they are counted here.
 */
import { executeCommand, type MemoryStore } from "@mem/core";
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { TestPostgres } from "./helpers.js";

let db: TestPostgres;

beforeAll(async () => {
  db = await TestPostgres.start();
});
afterAll(() => db?.stop());

/** A one-connection pool that counts the plans its session makes (`planned.count`). */
const planningPool = (planned: { count: number }): pg.Pool => {
  const pool = db.pool({ max: 1 });
  pool.on("connect", (client) => {
    client.on("notice", (notice) => {
      if (notice.message === "plan:") planned.count += 1;
    });
    void client.query("SET debug_print_plan = on; SET client_min_messages = log");
  });
  return pool;
};

const TENANTS = 150;

/** Each command kind a session runs, on tenant `t` in round `r`. */
const round = async (tenant: MemoryStore, r: number, t: number): Promise<string[]> => {
  const inputs = [
    { command: "view", path: "/memories" },
    { command: "view", path: "/memories/notes/a.md" },
    { command: "insert", path: "/memories/shared/log.md", insert_line: 1, insert_text: `line ${r} ${t}` },
    {
      command: "str_replace",
      path: "/memories/shared/log.md",
      old_str: `line ${r} ${t}`,
      new_str: `done ${r}`,
    },
    { command: "create", path: `/memories/scratch/c${r}.md`, file_text: "draft\n" },
    { command: "rename", old_path: `/memories/scratch/c${r}.md`, new_path: `/memories/scratch/r${r}.md` },
    { command: "delete", path: `/memories/scratch/r${r}.md` },
  ];
  const errors: string[] = [];
  for (const input of inputs) {
    const result = await executeCommand(tenant, input);
    if (result.isError) errors.push(`${input.command}: ${result.content}`);
  }
  return errors;
};

for (const expiry of [false, true]) {
  it(
    `plans each statement once per session on an analysed table${expiry ? " (with expiry)" : ""}`,
    {
      timeout: 120_000,
    },
    async () => {
      const table = db.freshTable();
      const options = { table, ...(expiry ? { expireAfterSeconds: 3600 } : {}) };
      const seeding = new PostgresStore({ pool: db.pool({ max: 8 }), ...options });
      const paths = ["/memories/notes/a.md", "/memories/notes/b.md", "/memories/shared/log.md"];
      for (let t = 0; t < TENANTS; t += 10) {
        await Promise.all(
          Array.from({ length: 10 }, async (_, i) => {
            const tenant = seeding.scope(`t${t + i}`);
            for (const path of paths)
              await executeCommand(tenant, { command: "create", path, file_text: "# a\nb\n" });
          }),
        );
      }
      await db.sql(`ANALYZE ${table}`);

      const planned = { count: 0 };
      const store = new PostgresStore({ pool: planningPool(planned), ...options });
      const tenants = Array.from({ length: TENANTS }, (_, t) => store.scope(`t${t}`));
      // Warm-up: each statement is prepared and its plan made (a plan cache builds its generic plan after
      // at most five custom ones).
      for (let r = 0; r < 8; r++) expect(await round(tenants[r]!, r, r)).toEqual([]);
      planned.count = 0;
      const commands = 7 * 40;
      for (let t = 8; t < 48; t++) expect(await round(tenants[t]!, 100 + t, t)).toEqual([]);
      // On the plan cache's own choice this was at least one planning per write, rename and delete.
      expect({ commands, plans: planned.count }).toEqual({ commands, plans: 0 });
    },
  );
}
