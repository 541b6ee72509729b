import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { executeCommand, type MemoryStore, searchIndexForm, searchMemory } from "@mem/core";
import { killOnceReady, startFixture, stopFixtures } from "@mem/testkit";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { freshDiskPath, freshPath } from "./helpers.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
afterAll(() => stopFixtures());

/** The same store seen without its index: what core's fallback (list, then read) finds. */
const fallbackOf = (store: MemoryStore): MemoryStore =>
  ({
    read: (path) => store.read(path),
    stat: (path) => store.stat(path),
    list: (path, depth, options) => store.list(path, depth, options),
  }) as MemoryStore;

const literal = (query: string, path = "/memories") => ({
  path,
  query,
  regex: false,
  caseSensitive: false,
  needle: searchIndexForm(query),
});

const create = (store: MemoryStore, path: string, file_text: string) =>
  executeCommand(store, { command: "create", path, file_text }, { sensitive: false });

describe("the FTS5 trigram index", () => {
  it("returns exactly the files whose text holds the query, any case, within the path and the tenant", async () => {
    const store = new SqliteStore({ path: freshPath() });
    try {
      await create(store, "/memories/a.md", "Green TEA\n");
      await create(store, "/memories/b/c.md", "tea\n");
      await create(store, "/memories/d.md", "coffee\n");
      await create(store, "/memories/e.md", "ſtraße K\n");
      await create(store.scope("other"), "/memories/a.md", "tea\n");
      await store.write("/memories/bin", new Uint8Array([0x74, 0x65, 0x61, 0xff]), { ifAbsent: true });
      const paths = async (request: ReturnType<typeof literal>) =>
        (await store.search(request))?.map((file) => file.path).sort();
      expect(await paths(literal("tea"))).toEqual(["/memories/a.md", "/memories/b/c.md"]);
      expect(await paths(literal("TEA", "/memories/b"))).toEqual(["/memories/b/c.md"]);
      expect(await paths(literal("STRASSE"))).toEqual([]);
      expect(await paths(literal("STRAßE K"))).toEqual(["/memories/e.md"]);
      expect(await paths(literal("sTr"))).toEqual(["/memories/e.md"]);
      expect(await paths(literal('a"b'))).toEqual([]);
      // What the index cannot narrow: core reads the files itself.
      expect(await store.search(literal("te"))).toBeNull();
      expect(await store.search({ ...literal("tea"), regex: true, needle: undefined } as never)).toBeNull();
      expect((await searchMemory(store, { query: "te" })).hits.map((hit) => hit.path)).toEqual([
        "/memories/a.md",
        "/memories/b/c.md",
      ]);
    } finally {
      await store.close();
    }
  });

  it("indexes the files of a database made before the index existed when it migrates", async () => {
    const path = freshPath();
    const first = new SqliteStore({ path });
    await create(first, "/memories/old.md", "kept from before\n");
    await first.close();
    const db = new Database(path);
    db.exec(`DROP TRIGGER mem_search_insert; DROP TRIGGER mem_search_update; DROP TRIGGER mem_search_delete;
      DROP TABLE mem_search; UPDATE mem_meta SET value = 1 WHERE key = 'schema';`);
    db.close();
    const store = new SqliteStore({ path });
    try {
      expect((await store.search(literal("FROM BEFORE")))?.map((file) => file.path)).toEqual([
        "/memories/old.md",
      ]);
    } finally {
      await store.close();
    }
    rmSync(dirname(path), { recursive: true, force: true });
  });

  it("holds nothing of a purged tenant", async () => {
    const path = freshPath();
    const store = new SqliteStore({ path });
    try {
      const tenant = store.scope("gone");
      await create(tenant, "/memories/s.md", "unforgettable words\n");
      await tenant.purge?.();
      const db = new Database(path, { readonly: true });
      const count = db.prepare(
        `SELECT count(*) AS n FROM mem_search WHERE mem_search MATCH '"unforgettable"'`,
      );
      expect(count.get()).toEqual({ n: 0 });
      db.close();
      expect((await searchMemory(tenant, { query: "unforgettable" })).hits).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it(
    "never returns a line not in the file and never misses one, across 4 SIGKILLs of a writer",
    { timeout: 240_000 },
    async () => {
      const path = freshDiskPath();
      const queries = ["ack/", "nested", "xxxxxxxx", "inner/g", "dir"];
      let searched = 0;
      for (let round = 0; round < 4; round++) {
        const child = startFixture(packageDir, "crash-worker.ts", [path]);
        const exit = await killOnceReady(child, 80);
        expect(exit.signal, exit.stderr).toBe("SIGKILL");
        const db = new Database(path);
        db.prepare("INSERT INTO mem_search (mem_search, rank) VALUES ('integrity-check', 1)").run();
        db.close();
        const store = new SqliteStore({ path });
        try {
          for (const query of queries) {
            const native = await searchMemory(store, { query, limit: 10_000 });
            const fallback = await searchMemory(fallbackOf(store), { query, limit: 10_000 });
            expect(native, query).toEqual(fallback);
            expect((await store.search(literal(query))) === null, query).toBe(false);
            searched += native.hits.length;
          }
        } finally {
          await store.close();
        }
      }
      expect(searched).toBeGreaterThan(4);
      rmSync(dirname(path), { recursive: true, force: true });
    },
  );
});
