/**
 * A table left by the previous schema (fixtures/schema-5.sql: what @mem/postgres created at schema 5,
 * table `schema5_fixture`), written by that schema's own functions, then opened by this release.
 */
import { readFileSync } from "node:fs";
import { executeCommand, type MemoryStore } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore, SCHEMA_VERSION } from "../src/index.js";
import { TestPostgres } from "./helpers.js";

let db: TestPostgres;

beforeAll(async () => {
  db = await TestPostgres.start();
});
afterAll(() => db?.stop());

const run = (store: MemoryStore, input: Record<string, unknown>) => executeCommand(store, input);

/** Creates the schema-5 table and functions under `table`'s name. */
const schema5 = async (table: string): Promise<void> => {
  const sql = readFileSync(new URL("./fixtures/schema-5.sql", import.meta.url), "utf8");
  await db.sql(sql.replaceAll("schema5_fixture", table));
};

/** A write through schema 5's own `write` function, as a process of that release did it. */
const write5 = (table: string, tenant: string, path: string, ancestors: string[], text: string) =>
  db.sql(`SELECT r_status FROM "public"."${table}_write"($1, $2, $3, $4, NULL, $5, NULL, NULL, NULL)`, [
    tenant,
    path,
    ancestors,
    Buffer.from(text),
    Date.now(),
  ]);

describe("schema 5 to the current one", () => {
  it("keeps every row and fence a schema-5 table holds, and replaces its functions", async () => {
    const table = db.freshTable();
    await schema5(table);
    const version = async () =>
      Number((await db.sql(`SELECT version FROM ${table} WHERE tenant = '' AND path = ''`)).rows[0].version);
    expect(await version()).toBe(5);
    const written = [
      await write5(table, "/acme", "/memories/notes/a.md", ["/memories/notes", "/memories"], "alpha\nbeta\n"),
      await write5(table, "/acme", "/memories/.hidden/h.md", ["/memories/.hidden", "/memories"], "hidden\n"),
      await write5(table, "/acme", "/memories/b.md", ["/memories"], "bee\n"),
      await write5(table, "/gone", "/memories/x.md", ["/memories"], "x\n"),
    ];
    expect(written.map((result) => result.rows[0].r_status)).toEqual(["ok", "ok", "ok", "ok"]);
    // A purge of `/gone` that stopped after its fence: schema 6 must keep refusing its writes.
    await db.sql(`INSERT INTO ${table} (tenant, path, kind) VALUES ('/gone', '', 'e')`);

    const store = new PostgresStore({ pool: db.pool(), table });
    const acme = store.scope("acme");
    expect((await run(acme, { command: "view", path: "/memories" })).content).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n" +
        "15B\t/memories\n4B\t/memories/b.md\n11B\t/memories/notes/\n11B\t/memories/notes/a.md",
    );
    expect(await version()).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(8);
    expect(await acme.usage()).toEqual({ files: 3, bytes: 22 });
    expect(
      await run(acme, {
        command: "str_replace",
        path: "/memories/notes/a.md",
        old_str: "beta",
        new_str: "b",
      }),
    ).toMatchObject({ isError: false });
    expect(
      await run(acme, { command: "create", path: "/memories/notes/c.md", file_text: "c\n" }),
    ).toMatchObject({ isError: false });
    expect(await run(acme, { command: "create", path: "/memories/b.md/d.md", file_text: "d" })).toEqual({
      content: "Error: Cannot create /memories/b.md/d.md: /memories/b.md is a file, not a directory",
      isError: true,
    });
    expect((await run(acme, { command: "view", path: "/memories/notes/a.md" })).content).toBe(
      "Here's the content of /memories/notes/a.md with line numbers:\n     1\talpha\n     2\tb",
    );
    expect(await acme.usage()).toEqual({ files: 4, bytes: 21 });
    // The `utf8` column schema 6 added: unknown (NULL, read as bytea) on the rows schema 5 wrote, set by
    // every write since.
    const marks = await db.sql(
      `SELECT path, utf8 FROM ${table} WHERE tenant = '/acme' AND kind = 'f' ORDER BY path`,
    );
    expect(marks.rows).toEqual([
      { path: "/memories/.hidden/h.md", utf8: null },
      { path: "/memories/b.md", utf8: null },
      { path: "/memories/notes/a.md", utf8: true },
      { path: "/memories/notes/c.md", utf8: true },
    ]);
    expect((await acme.read("/memories/b.md"))?.data).toEqual(new TextEncoder().encode("bee\n"));
    // The fence left by schema 5 holds for the tenant and its nested tenants.
    const refused = { content: "Error: This memory is being erased; nothing was changed.", isError: true };
    expect(
      await run(store.scope("gone"), { command: "create", path: "/memories/y.md", file_text: "y" }),
    ).toEqual(refused);
    expect(
      await run(store.scope("gone").scope("in"), {
        command: "create",
        path: "/memories/y.md",
        file_text: "y",
      }),
    ).toEqual(refused);
    expect((await run(store.scope("gone"), { command: "view", path: "/memories/x.md" })).isError).toBe(false);
    // What schemas 6 and 7 replaced: the fence check is PL/pgSQL, and the functions the store calls run
    // on generic plans (the ones they call inherit the setting).
    const functions = await db.sql(
      `SELECT p.proname, l.lanname, coalesce(array_to_string(p.proconfig, ','), '') AS config
         FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE p.proname = ANY ($1) ORDER BY p.proname`,
      [["adjust", "delete", "fenced", "list", "rename", "view", "write"].map((name) => `${table}_${name}`)],
    );
    const generic = "plan_cache_mode=force_generic_plan";
    expect(functions.rows).toEqual([
      { proname: `${table}_adjust`, lanname: "plpgsql", config: "" },
      { proname: `${table}_delete`, lanname: "plpgsql", config: generic },
      { proname: `${table}_fenced`, lanname: "plpgsql", config: "" },
      { proname: `${table}_list`, lanname: "plpgsql", config: generic },
      { proname: `${table}_rename`, lanname: "plpgsql", config: generic },
      { proname: `${table}_view`, lanname: "plpgsql", config: generic },
      { proname: `${table}_write`, lanname: "plpgsql", config: generic },
    ]);
    // Purging the fenced tenant again completes the erasure and lowers the fence.
    expect(await store.scope("gone").purge()).toEqual({ files: 1, bytes: 2 });
    expect(
      await run(store.scope("gone"), { command: "create", path: "/memories/y.md", file_text: "y" }),
    ).toMatchObject({ isError: false });
  });
});
