/**
 * Search through the `pg_trgm` index: the files it selects, its plan, and its agreement with core's
 * fallback under concurrent edits (it never returns a line that is not in the file, never misses one).
 */
import { executeCommand, type MemoryStore, searchIndexForm, searchMemory } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore, schemaSql } from "../src/index.js";
import { bytes, TestPostgres } from "./helpers.js";

let db: TestPostgres;
beforeAll(async () => {
  db = await TestPostgres.start();
});
afterAll(() => db?.stop());

/** The same store seen without its index: what core's fallback (list, then read) finds. */
const fallbackOf = (store: MemoryStore): MemoryStore =>
  ({
    read: (path) => store.read(path),
    stat: (path) => store.stat(path),
    list: (path, depth, options) => store.list(path, depth, options),
  }) as MemoryStore;

const literal = (query: string, caseSensitive = false, path = "/memories") => ({
  path,
  query,
  regex: false,
  caseSensitive,
  needle: searchIndexForm(query),
});

/** `count` notes in 20 directories, 8 written at a time, then the one file holding "Zanzibar", then ANALYZE. */
const seedNotes = async (
  store: PostgresStore,
  count: number,
  needle: string,
  table: string,
): Promise<void> => {
  for (let i = 0; i < count; i += 8) {
    await Promise.all(
      Array.from({ length: 8 }, (_, k) =>
        store.write(`/memories/d${(i + k) % 20}/f${i + k}.md`, bytes(`note ${i + k} about things\n`), {
          ifAbsent: true,
        }),
      ),
    );
  }
  await store.write(needle, bytes("the Zanzibar plan\n"), { ifAbsent: true });
  await db.sql(`ANALYZE ${table}`);
};

/** What `search()` selects from a few files, the same with and without the index. */
const selects = async (store: PostgresStore): Promise<void> => {
  await store.write("/memories/a.md", bytes("Green TEA\n"), { ifAbsent: true });
  await store.write("/memories/b/c.md", bytes("tea\n"), { ifAbsent: true });
  await store.write("/memories/d.md", bytes("coffee\n"), { ifAbsent: true });
  await store.write("/memories/e.md", bytes("ſtraße K \\ 100%_\n"), { ifAbsent: true });
  await store.write("/memories/bin", new Uint8Array([0x00, 0x74, 0x65, 0x61, 0xff]), { ifAbsent: true });
  await store.scope("other").write("/memories/a.md", bytes("tea\n"), { ifAbsent: true });
  const paths = async (request: ReturnType<typeof literal>) =>
    (await store.search(request))?.map((file) => file.path).sort();
  expect(await paths(literal("tea"))).toEqual(["/memories/a.md", "/memories/b/c.md", "/memories/bin"]);
  expect(await paths(literal("TEA", true))).toEqual(["/memories/a.md"]);
  expect(await paths(literal("TEA", false, "/memories/b"))).toEqual(["/memories/b/c.md"]);
  expect(await paths(literal("STRAßE k"))).toEqual(["/memories/e.md"]);
  expect(await paths(literal("sTr"))).toEqual(["/memories/e.md"]);
  expect(await paths(literal("K \\ 100%_"))).toEqual(["/memories/e.md"]);
  expect(await paths(literal("100%x"))).toEqual([]);
  expect(await store.search(literal("te"))).toBeNull();
  expect(await store.search({ ...literal("tea"), regex: true })).toBeNull();
  // Core skips the file that is not UTF-8.
  expect((await searchMemory(store, { query: "tea" })).hits.map((hit) => hit.path)).toEqual([
    "/memories/a.md",
    "/memories/b/c.md",
  ]);
};

describe("the pg_trgm index", () => {
  it("selects the files whose text holds the query in any case, within the path and the tenant", async () => {
    await selects(db.store());
  });

  it("plans the search through the index on a table of 10,000 files", { timeout: 240_000 }, async () => {
    const table = db.freshTable();
    const seeding = new PostgresStore({ pool: db.pool({ max: 8 }), table, tenant: "big" });
    await seedNotes(seeding, 10_000, "/memories/needle.md", table);
    const plans: string[] = [];
    const store = new PostgresStore({ pool: db.explainingPool(plans), table, tenant: "big" });
    await store.check();
    plans.length = 0;
    expect((await store.search(literal("zanzibar")))?.map((file) => file.path)).toEqual([
      "/memories/needle.md",
    ]);
    const plan = plans.join("\n");
    expect(plan).toMatch(/_search/);
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it(
    "never returns a line not in the file and never misses one under concurrent edits",
    { timeout: 120_000 },
    async () => {
      const store = db.store();
      const writers = 6;
      const rounds = 15;
      const acknowledged: string[] = [];
      /** Tokens a str_replace is replacing (or has replaced): a search may no longer find them. */
      const retiring = new Set<string>();
      let checks = 0;
      const write = async (w: number) => {
        const path = `/memories/w${w}.md`;
        await executeCommand(store, { command: "create", path, file_text: `writer ${w}\n` });
        for (let r = 0; r < rounds; r++) {
          const token = `tok${w}x${r}q`;
          if (r % 3 === 2) retiring.add(`tok${w}x${r - 1}q`);
          const edit =
            r % 3 === 2
              ? { command: "str_replace", path, old_str: `tok${w}x${r - 1}q`, new_str: token }
              : { command: "insert", path, insert_line: 0, insert_text: `${token}\n` };
          const result = await executeCommand(store, edit, { sensitive: false });
          expect(result.isError, result.content).toBe(false);
          acknowledged.push(token);
          // r - 1 was replaced by r when r % 3 === 2.
          if (r % 3 === 2) acknowledged.splice(acknowledged.indexOf(`tok${w}x${r - 1}q`), 1);
        }
      };
      const search = async () => {
        for (let i = 0; i < 20; i++) {
          const known = [...acknowledged];
          const result = await searchMemory(store, { query: "TOK", limit: 10_000 });
          for (const hit of result.hits) expect(hit.text.toLowerCase()).toContain("tok");
          const found = new Set(result.hits.map((hit) => hit.text));
          // A token written before the search began and not replaced since is found.
          for (const token of known) if (!retiring.has(token)) expect(found.has(token), token).toBe(true);
          checks += 1;
        }
      };
      await Promise.all([...Array.from({ length: writers }, (_, w) => write(w)), search(), search()]);
      expect(checks).toBe(40);
      for (const query of ["tok", "TOK1X", "writer", "x14q"]) {
        expect(await searchMemory(store, { query }), query).toEqual(
          await searchMemory(fallbackOf(store), { query }),
        );
      }
      expect((await searchMemory(store, { query: "tok" })).hits).toHaveLength(writers * (rounds - 5));
    },
  );
});

describe("searchIndex: false", () => {
  const indexes = async (table: string) =>
    (
      await db.sql("SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname", [table])
    ).rows.map((row) => row.indexname as string);

  it("makes no index and selects the same files through the primary key", { timeout: 120_000 }, async () => {
    const table = db.freshTable();
    const store = new PostgresStore({ pool: db.pool(), table, searchIndex: false });
    await store.check();
    expect(await indexes(table)).toEqual([`${table}_access`, `${table}_children`, `${table}_pkey`]);
    await selects(store.scope("small"));

    const seeding = store.scope("big");
    await seedNotes(seeding, 2_000, "/memories/d3/needle.md", table);
    const plans: string[] = [];
    const explained = new PostgresStore({ pool: db.explainingPool(plans), table, tenant: "big" });
    await explained.check();
    plans.length = 0;
    expect(
      (await explained.search(literal("zanzibar", false, "/memories/d3")))?.map((file) => file.path),
    ).toEqual(["/memories/d3/needle.md"]);
    expect(plans.join("\n")).toMatch(new RegExp(`Index Scan (using|on) ${table}_pkey`));
    expect(plans.join("\n")).not.toMatch(/Seq Scan/);
    expect((await searchMemory(explained, { query: "plan" })).hits).toEqual([
      { path: "/memories/d3/needle.md", line: 1, text: "the Zanzibar plan" },
    ]);
  });

  it("leaves an index the table has, and is a boolean", async () => {
    const table = db.freshTable();
    await new PostgresStore({ pool: db.pool(), table }).check();
    await new PostgresStore({ pool: db.pool(), table, searchIndex: false }).check();
    expect(await indexes(table)).toContain(`${table}_search`);
    for (const searchIndex of ["false", 0, null]) {
      expect(() => new PostgresStore({ pool: db.pool(), searchIndex } as never), String(searchIndex)).toThrow(
        new TypeError("PostgresStore: `searchIndex` must be true or false"),
      );
      expect(() => schemaSql({ searchIndex } as never), String(searchIndex)).toThrow(
        new TypeError("schemaSql: `searchIndex` must be true or false"),
      );
    }
    expect(schemaSql()).toMatch(
      /CREATE EXTENSION IF NOT EXISTS pg_trgm;\nCREATE INDEX IF NOT EXISTS "mem_files_search"/,
    );
    expect(schemaSql({ searchIndex: false })).not.toMatch(/pg_trgm|_search/);
  });
});
