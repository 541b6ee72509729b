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

/**
 * A table not yet analysed (new, or grown faster than autovacuum analyses it): PostgreSQL assumes 0.5% of
 * rows for `kind = 'f'` and for `tenant = $1`, and the plans kept for the session found a file by its path
 * through the access index (partial, `WHERE kind = 'f'`) or the children index, reading every file of the
 * tenant: each read, edit and create of a tenant of 4,000 files scanned its 4,000 rows. `auto_explain`
 * sends the plan of every statement, those inside the store's functions included, to the client, so the
 * rows each plan node read are counted here.
 */
it(
  "finds a file by its path with probes of the key on a table not yet analysed",
  { timeout: 120_000 },
  async () => {
    const table = db.freshTable();
    const seeding = new PostgresStore({ pool: db.pool({ max: 8 }), table });
    await seeding.check();
    await db.sql(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    const big = seeding.scope("big");
    const text = new TextEncoder().encode("# note\nfact one\nfact two\n");
    const FILES = 1_500;
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = w; i < FILES; i += 8)
          await big.write(`/memories/topic-${i % 10}/note-${i}.md`, text, { ifAbsent: true });
      }),
    );
    await big.write("/memories/small/a.md", text, { ifAbsent: true });
    await big.write("/memories/small/sub/b.md", text, { ifAbsent: true });
    const never = await db.sql(
      `SELECT last_analyze, last_autoanalyze FROM pg_stat_user_tables WHERE relname = '${table}'`,
    );
    expect(never.rows).toEqual([{ last_analyze: null, last_autoanalyze: null }]);

    const notes: string[] = [];
    const pool = db.pool({ max: 1 });
    pool.on("connect", (client) => {
      client.on("notice", (notice) => notes.push(notice.message ?? ""));
      void client.query(
        "LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; " +
          "SET auto_explain.log_analyze = on; SET auto_explain.log_level = notice; SET client_min_messages = notice",
      );
    });
    /** The most rows any node of the plans since the last call read (or removed by a filter). */
    const mostRowsRead = () => {
      let most = 0;
      for (const plan of notes.splice(0)) {
        for (const m of plan.matchAll(/Rows Removed by (?:Join )?Filter: (\d+)/g))
          most = Math.max(most, Number(m[1]));
        for (const m of plan.matchAll(/actual time=[0-9.]+\.\.[0-9.]+ rows=(\d+) loops=(\d+)/g))
          most = Math.max(most, Number(m[1]) * Number(m[2]));
      }
      return most;
    };
    const inputs = (r: number) => [
      { command: "view", path: "/memories/topic-3/note-3.md" },
      { command: "view", path: "/memories/topic-3/note-3.md", view_range: [2, 3] },
      { command: "insert", path: "/memories/topic-3/note-3.md", insert_line: 1, insert_text: `line ${r}` },
      {
        command: "str_replace",
        path: "/memories/topic-3/note-3.md",
        old_str: `line ${r}`,
        new_str: `done ${r}`,
      },
      { command: "create", path: `/memories/topic-4/new-${r}.md`, file_text: "new\n" },
      { command: "create", path: `/memories/topic-4/new-${r}.md`, file_text: "again\n" },
      { command: "create", path: `/memories/topic-4/new-${r}.md/under.md`, file_text: "under a file\n" },
      {
        command: "rename",
        old_path: `/memories/topic-4/new-${r}.md`,
        new_path: `/memories/topic-5/moved-${r}.md`,
      },
      {
        command: "rename",
        old_path: `/memories/topic-5/moved-${r}.md`,
        new_path: "/memories/topic-3/note-3.md/x.md",
      },
      { command: "delete", path: `/memories/topic-5/moved-${r}.md` },
      // A directory of a few entries in a tenant of many: the listing reads what it shows.
      { command: "view", path: "/memories/small" },
    ];
    for (const expiry of [false, true]) {
      const store = new PostgresStore({ pool, table, ...(expiry ? { expireAfterSeconds: 3600 } : {}) });
      const tenant = store.scope("big");
      const most: Record<string, number> = {};
      // Eight rounds: a named statement gets its plan for the session after at most five.
      for (let r = 0; r < 8; r++) {
        for (const [i, input] of inputs(expiry ? 100 + r : r).entries()) {
          mostRowsRead();
          const result = await executeCommand(tenant, input);
          // The second create, the create under a file and the rename under a file are refused.
          expect({ i, isError: result.isError }).toEqual({ i, isError: i === 5 || i === 6 || i === 8 });
          const key = `${i} ${input.command}`;
          if (r >= 6) most[key] = Math.max(most[key] ?? 0, mostRowsRead());
        }
      }
      expect(notes.length === 0 && Object.keys(most).length).toBe(11);
      // At most the rows of the file, its ancestors and the tenant's `/memories` row, never the tenant's files.
      const over = Object.entries(most).filter(([, rows]) => rows > 20);
      expect({ expiry, over }).toEqual({ expiry, over: [] });
    }
    // The totals kept by the edits, creates, renames and deletes add up.
    const edited = (await big.read("/memories/topic-3/note-3.md"))!.data.length;
    expect(await big.usage()).toEqual({ files: FILES + 2, bytes: (FILES + 1) * text.length + edited });
  },
);
