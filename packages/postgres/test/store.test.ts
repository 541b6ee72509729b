import { executeCommand, InMemoryStore, listingFromFiles, type MemoryStore, ROOT } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore, SCHEMA_VERSION, schemaSql } from "../src/index.js";
import { bytes, QueryCounter, TestPostgres, textOf } from "./helpers.js";

let pg: TestPostgres;

beforeAll(async () => {
  pg = await TestPostgres.start();
});
afterAll(() => pg?.stop());

const run = (store: MemoryStore, input: Record<string, unknown>) => executeCommand(store, input);

const create = async (store: MemoryStore, path: string, text: string) => {
  const result = await run(store, { command: "create", path, file_text: text });
  expect(result, path).toEqual({ content: `File created successfully at: ${path}`, isError: false });
};

const view = async (store: MemoryStore, path: string) =>
  (await run(store, { command: "view", path })).content;

/** Every row of a tenant's aggregates must follow from its file rows alone. */
const aggregateProblems = async (table: string, tenant: string): Promise<string[]> => {
  const rows = (
    await pg.sql(`SELECT path, kind, size, files, bytes FROM ${table} WHERE tenant = $1`, [tenant])
  ).rows as Array<{ path: string; kind: string; size: string; files: string; bytes: string }>;
  const files = rows
    .filter((row) => row.kind === "f")
    .map((row) => ({ path: row.path, size: Number(row.size) }));
  const problems: string[] = [];
  for (const row of rows) {
    if (row.kind === "f") continue;
    const beneath = files.filter((file) => file.path.startsWith(`${row.path}/`));
    const expected = {
      size: listingFromFiles(row.path, files, 0).size,
      files: beneath.length,
      bytes: beneath.reduce((sum, file) => sum + file.size, 0),
    };
    const actual = { size: Number(row.size), files: Number(row.files), bytes: Number(row.bytes) };
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      problems.push(`${row.path}: ${JSON.stringify(actual)} != ${JSON.stringify(expected)}`);
    }
    if (row.kind === "d" && expected.files === 0) problems.push(`empty directory row ${row.path}`);
  }
  for (const file of files) {
    for (let dir = file.path.slice(0, file.path.lastIndexOf("/")); dir !== ROOT; ) {
      if (!rows.some((row) => row.path === dir && row.kind === "d")) problems.push(`no row for ${dir}`);
      dir = dir.slice(0, dir.lastIndexOf("/"));
    }
  }
  return problems;
};

describe("options", () => {
  it("refuses bad options with a TypeError naming the option", () => {
    const pool = pg.pool();
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /`pool`.*`connectionString`/],
      [{ pool, connectionString: pg.server.url }, /exactly one of `pool`/],
      [{ pool: {} }, /`pool` must be a pg.Pool/],
      [{ connectionString: 42 }, /`connectionString`/],
      [{ pool, table: "Files" }, /`table` must be/],
      [{ pool, table: "mem; DROP TABLE x" }, /`table` must be/],
      [{ pool, table: `t${"x".repeat(48)}` }, /`table` must be 1 to 48/],
      [{ pool, schema: 'a"b' }, /`schema` must be/],
      [{ pool, schema: "" }, /`schema` must be/],
      [{ pool, expireAfterSeconds: 0 }, /`expireAfterSeconds`/],
      [{ pool, expireAfterSeconds: -5 }, /`expireAfterSeconds`/],
      [{ pool, expireAfterSeconds: Number.NaN }, /`expireAfterSeconds`/],
      [{ pool, expireAfterSeconds: "60" }, /`expireAfterSeconds`/],
      [{ pool, clock: 5 }, /`clock`/],
      [{ pool, tenant: "a/b" }, /tenant/],
    ];
    for (const [options, message] of bad) {
      expect(() => new PostgresStore(options as never), JSON.stringify(Object.keys(options))).toThrow(
        new RegExp(message.source),
      );
      expect(() => new PostgresStore(options as never)).toThrow(TypeError);
    }
  });

  it("refuses invalid tenant ids at scope() and writes nothing", async () => {
    const root = pg.store();
    await create(root, "/memories/a.txt", "a\n");
    const before = (await pg.sql("SELECT count(*) AS n FROM mem_files")).rows[0].n;
    for (const tenant of [
      "a/b",
      "..",
      ".",
      "",
      "x\u0000y",
      "t".repeat(129),
      "x'; DROP TABLE mem_files; --",
      "é",
    ]) {
      expect(() => root.scope(tenant), JSON.stringify(tenant)).toThrow(TypeError);
    }
    expect((await pg.sql("SELECT count(*) AS n FROM mem_files")).rows[0].n).toBe(before);
    expect(root.scope("t".repeat(128)).tenant).toBe("t".repeat(128));
  });
});

describe("schema", () => {
  it("creates the table, its indexes and the version row on first use, in a chosen schema", async () => {
    await pg.sql("CREATE SCHEMA IF NOT EXISTS memory");
    const table = pg.freshTable();
    const store = new PostgresStore({ pool: pg.pool(), schema: "memory", table });
    await store.check();
    const version = await pg.sql(`SELECT version FROM memory.${table} WHERE tenant = '' AND path = ''`);
    expect(Number(version.rows[0].version)).toBe(SCHEMA_VERSION);
    const indexes = await pg.sql(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'memory' AND tablename = $1",
      [table],
    );
    expect(indexes.rows.map((row) => row.indexname).sort()).toEqual(
      [`${table}_access`, `${table}_children`, `${table}_pkey`, `${table}_search`].sort(),
    );
    const collation = await pg.sql(
      `SELECT attname, collname FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation
        WHERE attrelid = 'memory.${table}'::regclass AND attname IN ('tenant', 'path')`,
    );
    expect(collation.rows.map((row) => row.collname)).toEqual(["C", "C"]);
    await create(store, "/memories/x.md", "x\n");
    expect(await view(store.scope("other"), "/memories")).toContain("0B\t/memories");
  });

  it("is created once when many stores start together", async () => {
    const table = pg.freshTable();
    const stores = Array.from({ length: 6 }, () => new PostgresStore({ pool: pg.pool(), table }));
    const results = await Promise.all(
      stores.map((store, i) =>
        run(store, { command: "create", path: `/memories/f${i}.txt`, file_text: "x" }),
      ),
    );
    expect(results.every((result) => !result.isError)).toBe(true);
    const rows = await pg.sql(`SELECT count(*) AS n FROM ${table} WHERE kind = 'f'`);
    expect(Number(rows.rows[0].n)).toBe(6);
  });

  it("uses a table made beforehand with schemaSql() without creating anything", async () => {
    const table = pg.freshTable();
    await pg.sql(schemaSql({ table }));
    const counter = new QueryCounter();
    const store = new PostgresStore({ pool: counter.attach(pg.pool()), table });
    expect(await counter.during(() => store.check())).toBe(2);
    expect(counter.texts.some((text) => /CREATE/.test(text))).toBe(false);
    await create(store, "/memories/a.md", "a");
    expect(() => schemaSql({ table: "Bad Name" })).toThrow(TypeError);
  });

  it("moves a table written by version 1 (flat tenant ids, `default` unscoped) to nested keys on first use", async () => {
    const table = pg.freshTable();
    const writer = new PostgresStore({ pool: pg.pool(), table });
    await create(writer, "/memories/root.md", "root\n");
    await create(writer.scope("acme"), "/memories/acme.md", "acme\n");
    await create(writer.scope("alice"), "/memories/d/alice.md", "alice\n");
    // The layout version 1 wrote: one flat id per row, the unscoped store's rows under `default`.
    await pg.sql(
      `UPDATE ${table} SET tenant = CASE WHEN tenant = '/' THEN 'default' ELSE substr(tenant, 2) END
        WHERE tenant <> ''`,
    );
    await pg.sql(`UPDATE ${table} SET version = 1 WHERE tenant = '' AND path = ''`);
    const old = await pg.sql(`SELECT DISTINCT tenant FROM ${table} WHERE tenant <> '' ORDER BY tenant`);
    expect(old.rows.map((row) => row.tenant)).toEqual(["acme", "alice", "default"]);

    const store = new PostgresStore({ pool: pg.pool(), table });
    expect(await view(store, "/memories")).toContain("5B\t/memories/root.md");
    expect(await view(store.scope("acme"), "/memories/acme.md")).toContain("acme");
    expect(await view(store.scope("alice"), "/memories/d/alice.md")).toContain("alice");
    expect(await view(new PostgresStore({ pool: pg.pool(), table, tenant: "alice" }), "/memories")).toContain(
      "6B\t/memories/d/alice.md",
    );
    // `default` is now a tenant like any other, empty after the move.
    expect(await store.scope("default").usage()).toEqual({ files: 0, bytes: 0 });
    expect(await store.usage()).toEqual({ files: 1, bytes: 5 });
    const keys = await pg.sql(`SELECT DISTINCT tenant FROM ${table} WHERE tenant <> '' ORDER BY tenant`);
    expect(keys.rows.map((row) => row.tenant)).toEqual(["/", "/acme", "/alice"]);
    const version = await pg.sql(`SELECT version FROM ${table} WHERE tenant = '' AND path = ''`);
    expect(Number(version.rows[0].version)).toBe(SCHEMA_VERSION);
    for (const key of ["/", "/acme", "/alice"]) expect(await aggregateProblems(table, key)).toEqual([]);
    // A second start finds the table current and moves nothing again.
    const again = new PostgresStore({ pool: pg.pool(), table });
    expect(await again.scope("acme").usage()).toEqual({ files: 1, bytes: 5 });
  });

  it("tells a role that may use the table but not upgrade or create it to run schemaSql() as the owner", async () => {
    const table = pg.freshTable();
    await new PostgresStore({ pool: pg.pool(), table }).check();
    await pg.sql(`UPDATE ${table} SET version = version - 1 WHERE tenant = '' AND path = ''`);
    const role = `app_${process.pid}`;
    await pg.sql(`CREATE ROLE ${role} LOGIN PASSWORD 'app-secret-pw'`);
    // What the README's Managed PostgreSQL section says to grant.
    await pg.sql(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO ${role}`);
    await pg.sql(`GRANT USAGE ON SEQUENCE ${table}_versions TO ${role}`);
    const url = new URL(pg.server.url);
    url.username = role;
    url.password = "app-secret-pw";
    const store = new PostgresStore({ connectionString: url.href, table });
    const missing = new PostgresStore({ connectionString: url.href, table: pg.freshTable() });
    try {
      const upgrade = `the table is at schema version ${SCHEMA_VERSION - 1}, this release needs ${SCHEMA_VERSION}, and this role may not upgrade it: run schemaSql() as the table's owner`;
      await expect(store.check()).rejects.toMatchObject({ reason: upgrade });
      expect(await run(store, { command: "view", path: "/memories" })).toEqual({
        content: `Error: view failed for /memories: ${upgrade}`,
        isError: true,
      });
      await expect(missing.check()).rejects.toMatchObject({
        reason:
          "the table does not exist and this role may not create it: run schemaSql() as the database owner",
      });
      // Nothing was changed: the owner's upgrade then serves the role.
      await pg.sql(schemaSql({ table }));
      await create(store, "/memories/a.md", "a");
    } finally {
      await store.close();
      await missing.close();
    }
  });

  it("refuses a table created by a newer release", async () => {
    const table = pg.freshTable();
    await new PostgresStore({ pool: pg.pool(), table }).check();
    await pg.sql(`UPDATE ${table} SET version = version + 1 WHERE tenant = '' AND path = ''`);
    const store = new PostgresStore({ pool: pg.pool(), table });
    await expect(store.check()).rejects.toMatchObject({
      reason: "the table was created by a newer release of @mem/postgres",
    });
    expect(await run(store, { command: "view", path: "/memories" })).toEqual({
      content: "Error: view failed for /memories: the table was created by a newer release of @mem/postgres",
      isError: true,
    });
  });
});

describe("tenants", () => {
  it("keeps each scope a complete /memories of its own", async () => {
    const root = pg.store();
    const alice = root.scope("alice@example.com");
    const bob = root.scope("bob");
    await create(alice, "/memories/notes/a.md", "alice\n");
    await create(bob, "/memories/notes/a.md", "bob bob\n");
    await create(root, "/memories/root.md", "root\n");
    expect(await view(alice, "/memories/notes/a.md")).toContain("alice");
    expect(await view(bob, "/memories/notes/a.md")).toContain("bob bob");
    expect(await view(alice, "/memories")).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n" +
        "6B\t/memories\n6B\t/memories/notes/\n6B\t/memories/notes/a.md",
    );
    expect(await alice.usage()).toEqual({ files: 1, bytes: 6 });
    expect(await bob.usage()).toEqual({ files: 1, bytes: 8 });
    expect((await run(alice, { command: "delete", path: "/memories/notes" })).isError).toBe(false);
    expect(await alice.read("/memories/notes/a.md")).toBeNull();
    expect(textOf((await bob.read("/memories/notes/a.md"))!.data)).toBe("bob bob\n");
    expect(await root.read("/memories/notes/a.md")).toBeNull();
    expect(textOf((await root.read("/memories/root.md"))!.data)).toBe("root\n");
    await alice.delete(ROOT);
    expect(await bob.usage()).toEqual({ files: 1, bytes: 8 });
  });

  it("nests scopes: organisations on one table never share their users' memories", async () => {
    const table = pg.freshTable();
    const pool = pg.pool();
    const acme = new PostgresStore({ pool, table, tenant: "acme" });
    const beta = new PostgresStore({ pool, table }).scope("beta");
    const unscoped = new PostgresStore({ pool, table });
    await create(acme.scope("alice"), "/memories/secret.md", "acme alice\n");
    for (const other of [
      beta.scope("alice"),
      unscoped.scope("alice"),
      new PostgresStore({ pool, table, tenant: "alice" }),
      acme,
      unscoped,
      unscoped.scope("default"),
      acme.scope("alice").scope("alice"),
    ]) {
      expect(await other.read("/memories/secret.md"), other.tenantKey).toBeNull();
      expect(await other.usage(), other.tenantKey).toEqual({ files: 0, bytes: 0 });
    }
    await create(unscoped, "/memories/root.md", "root\n");
    expect(await unscoped.scope("default").read("/memories/root.md")).toBeNull();
    expect(await new PostgresStore({ pool, table, tenant: "default" }).read("/memories/root.md")).toBeNull();
    // The same chain reached either way is the same tenant.
    expect(textOf((await unscoped.scope("acme").scope("alice").read("/memories/secret.md"))!.data)).toBe(
      "acme alice\n",
    );
    // Deleting a tenant's whole /memories leaves the tenants inside it alone, and the reverse.
    await acme.delete(ROOT);
    expect(await acme.scope("alice").usage()).toEqual({ files: 1, bytes: 11 });
    await acme.scope("alice").delete(ROOT);
    expect(await unscoped.usage()).toEqual({ files: 1, bytes: 5 });
  });

  it("shares the parent's pool: 10,000 scopes open no connection of their own", async () => {
    const pool = pg.pool({ max: 3 });
    const root = new PostgresStore({ pool });
    await root.check();
    const scopes = Array.from({ length: 10_000 }, (_, i) => root.scope(`user-${i}`));
    for (const scope of scopes.slice(0, 50)) await create(scope, "/memories/a.md", "x\n");
    expect(scopes.every((scope) => scope.pool === pool)).toBe(true);
    expect(pool.totalCount).toBeLessThanOrEqual(3);
    await scopes[0]!.close();
    expect(pool.ended).toBe(false);
    expect(await scopes[9_999]!.usage()).toEqual({ files: 0, bytes: 0 });
  });

  it("closes the pool it made from a connection string, and only that one", async () => {
    const owned = new PostgresStore({ connectionString: pg.server.url, tenant: pg.freshTenant() });
    await create(owned, "/memories/a.md", "x");
    await owned.scope("other").close();
    expect(owned.pool.ended).toBe(false);
    await owned.close();
    expect(owned.pool.ended).toBe(true);
    const pool = pg.pool();
    await new PostgresStore({ pool }).close();
    expect(pool.ended).toBe(false);
  });
});

describe("usage and aggregates", () => {
  it("reports files and bytes, hidden ones included, from one row", async () => {
    const counter = new QueryCounter();
    const store = pg.store({}, counter.attach(pg.pool()));
    expect(await store.usage()).toEqual({ files: 0, bytes: 0 });
    await create(store, "/memories/a/b.md", "12345");
    await create(store, "/memories/.hidden/c.md", "123");
    await create(store, "/memories/node_modules/x/d.md", "1");
    expect(await store.usage()).toEqual({ files: 3, bytes: 9 });
    await run(store, {
      command: "str_replace",
      path: "/memories/a/b.md",
      old_str: "345",
      new_str: "3456789",
    });
    expect(await store.usage()).toEqual({ files: 3, bytes: 13 });
    await run(store, { command: "rename", old_path: "/memories/a", new_path: "/memories/.x/a" });
    expect(await store.usage()).toEqual({ files: 3, bytes: 13 });
    await run(store, { command: "delete", path: "/memories/.x" });
    expect(await store.usage()).toEqual({ files: 2, bytes: 4 });
    expect(await counter.during(() => store.usage())).toBe(1);
    const plan = await pg.sql(
      "EXPLAIN SELECT files, bytes FROM mem_files WHERE tenant = 'x' AND path = '/memories'",
    );
    expect(plan.rows.map((row) => row["QUERY PLAN"]).join("\n")).toMatch(/Index Scan using mem_files_pkey/);
  });

  it("keeps every directory's totals equal to what its files add up to, through a random history", async () => {
    const store = pg.store();
    const model = new InMemoryStore();
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const names = ["a", "b", ".h", "node_modules", "c0", "a.b", "a0"];
    const pathOf = () =>
      `/memories/${Array.from({ length: 1 + random(3) }, () => names[random(names.length)]).join("/")}`;
    for (let step = 0; step < 250; step++) {
      const kind = random(10);
      const path = pathOf();
      const input =
        kind < 5
          ? { command: "create", path, file_text: "x".repeat(random(40)) }
          : kind < 7
            ? { command: "insert", path, insert_line: 0, insert_text: "y".repeat(random(9)) }
            : kind < 8
              ? { command: "delete", path }
              : { command: "rename", old_path: path, new_path: pathOf() };
      expect(await run(store, input), JSON.stringify(input)).toEqual(await run(model, input));
    }
    expect(await aggregateProblems("mem_files", store.tenantKey)).toEqual([]);
    const dirs = [
      ROOT,
      ...((await model.list(ROOT, 9))?.entries ?? [])
        .filter((e) => e.kind === "directory")
        .map((e) => e.path),
    ];
    for (const dir of dirs) expect(await view(store, dir), dir).toBe(await view(model, dir));
  });
});

describe("paths and contents as data", () => {
  it("stores SQL in every field as plain data", async () => {
    const tenant = "x.'--";
    expect(() => pg.store().scope(tenant)).toThrow(TypeError);
    const store = pg.store().scope("robert.tables+1@example.com");
    const hostile = [
      "/memories/'; DROP TABLE mem_files; --",
      '/memories/" OR 1=1 --/x',
      "/memories/$1$2/$$ $fn$",
      "/memories/a_b/c%z",
      "/memories/%_/*",
      "/memories/) UNION SELECT content FROM mem_files --",
    ];
    for (const path of hostile) {
      const text = `'); DELETE FROM mem_files; -- ${path}\n$fn$ \\x00 E'\\\\'\n`;
      await create(store, path, text);
      expect(textOf((await store.read(path))!.data)).toBe(text);
    }
    const listing = await view(store, ROOT);
    for (const path of hostile) expect(listing).toContain(path.split("/").slice(0, 3).join("/"));
    const edited = await run(store, {
      command: "str_replace",
      path: hostile[0],
      old_str: "DELETE",
      new_str: "'; TRUNCATE mem_files; --",
    });
    expect(edited.isError).toBe(false);
    const moved = await run(store, {
      command: "rename",
      old_path: '/memories/" OR 1=1 --',
      new_path: "/memories/'x'",
    });
    expect(moved.isError).toBe(false);
    expect(textOf((await store.read("/memories/'x'/x"))!.data)).toContain("DELETE FROM");
    const raw = new Uint8Array([0, 255, 39, 92, 0, 10]);
    await store.write("/memories/bin", raw, { ifAbsent: true });
    expect((await store.read("/memories/bin"))!.data).toEqual(raw);
    expect(
      Number(
        (
          await pg.sql("SELECT count(*) AS n FROM mem_files WHERE tenant = $1 AND kind = 'f'", [
            store.tenantKey,
          ])
        ).rows[0].n,
      ),
    ).toBe(7);
    expect(await aggregateProblems("mem_files", store.tenantKey)).toEqual([]);
  });

  it("deletes and moves a directory without touching names that only share its prefix", async () => {
    const store = pg.store();
    for (const path of [
      "/memories/a/x",
      "/memories/a0",
      "/memories/a.b",
      "/memories/a-b/y",
      "/memories/ab",
      "/memories/a/b/c",
    ]) {
      await create(store, path, path);
    }
    await run(store, { command: "rename", old_path: "/memories/a", new_path: "/memories/z" });
    expect(await store.stat("/memories/a")).toBeNull();
    expect(await store.stat("/memories/z/b/c")).toEqual({ kind: "file", size: 15 });
    await run(store, { command: "delete", path: "/memories/z" });
    const left = (await store.list(ROOT, 3))!.entries.map((entry) => entry.path).sort();
    expect(left).toEqual([
      "/memories/a-b",
      "/memories/a-b/y",
      "/memories/a.b",
      "/memories/a0",
      "/memories/ab",
    ]);
    expect(await aggregateProblems("mem_files", store.tenantKey)).toEqual([]);
  });
});

describe("round trips", () => {
  it("sends one statement per command (two for an edit), as the README states", async () => {
    const counter = new QueryCounter();
    const store = pg.store({}, counter.attach(pg.pool()));
    await store.check();
    await create(store, "/memories/dir/a.md", "one\ntwo\n");
    const count = (input: Record<string, unknown>) => counter.during(() => run(store, input));
    expect({
      viewFile: await count({ command: "view", path: "/memories/dir/a.md" }),
      viewRange: await count({ command: "view", path: "/memories/dir/a.md", view_range: [1, 1] }),
      viewRoot: await count({ command: "view", path: "/memories" }),
      viewDir: await count({ command: "view", path: "/memories/dir" }),
      viewDirAgain: await count({ command: "view", path: "/memories/dir" }),
      viewMissing: await count({ command: "view", path: "/memories/nope" }),
      create: await count({ command: "create", path: "/memories/dir/b.md", file_text: "x\n" }),
      createExisting: await count({ command: "create", path: "/memories/dir/b.md", file_text: "x\n" }),
      strReplace: await count({
        command: "str_replace",
        path: "/memories/dir/a.md",
        old_str: "one",
        new_str: "1",
      }),
      insert: await count({
        command: "insert",
        path: "/memories/dir/a.md",
        insert_line: 1,
        insert_text: "x",
      }),
      rename: await count({ command: "rename", old_path: "/memories/dir", new_path: "/memories/d2" }),
      delete: await count({ command: "delete", path: "/memories/d2/b.md" }),
    }).toEqual({
      viewFile: 1,
      viewRange: 1,
      viewRoot: 1,
      // The first view of a directory reads it as a file first; the store then knows it is a directory.
      viewDir: 2,
      viewDirAgain: 1,
      viewMissing: 2,
      create: 1,
      createExisting: 1,
      strReplace: 2,
      insert: 2,
      rename: 1,
      delete: 1,
    });
    expect(counter.errors).toEqual([]);
  });

  it("keeps the same counts with expiry on", async () => {
    const counter = new QueryCounter();
    const store = pg.store({ expireAfterSeconds: 60 }, counter.attach(pg.pool()));
    await store.check();
    await create(store, "/memories/dir/a.md", "one\n");
    const count = (input: Record<string, unknown>) => counter.during(() => run(store, input));
    expect(await count({ command: "view", path: "/memories/dir/a.md" })).toBe(1);
    expect(await count({ command: "view", path: "/memories/dir" })).toBe(1);
    expect(
      await count({ command: "str_replace", path: "/memories/dir/a.md", old_str: "one", new_str: "1" }),
    ).toBe(2);
    expect(await count({ command: "delete", path: "/memories/dir" })).toBe(1);
    expect(await counter.during(() => store.usage())).toBe(1);
    expect(await counter.during(() => store.sweep())).toBe(1);
  });
});

describe("expiry", () => {
  const clocked = (seconds = 100) => {
    let now = 1_700_000_000_000;
    const store = pg.store({ expireAfterSeconds: seconds, clock: () => now });
    return {
      store,
      advance: (ms: number) => {
        now += ms;
      },
    };
  };

  it("treats a file not accessed for longer than the limit as missing at once", async () => {
    const { store, advance } = clocked();
    await create(store, "/memories/d/old.md", "old\n");
    await create(store, "/memories/keep.md", "keep\n");
    advance(60_000);
    expect(await view(store, "/memories/keep.md")).toContain("keep");
    advance(40_000);
    // old.md: 100 s without access, not longer: still there.
    expect(await store.stat("/memories/d/old.md")).toEqual({ kind: "file", size: 4 });
    advance(1);
    expect(await run(store, { command: "view", path: "/memories/d/old.md" })).toEqual({
      content: "The path /memories/d/old.md does not exist. Please provide a valid path.",
      isError: true,
    });
    expect(await store.stat("/memories/d")).toBeNull();
    expect(await view(store, ROOT)).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n" +
        "5B\t/memories\n5B\t/memories/keep.md",
    );
    expect(await store.usage()).toEqual({ files: 1, bytes: 5 });
    expect(await store.files()).toEqual([{ path: "/memories/keep.md", size: 5 }]);
    await create(store, "/memories/d/old.md", "new\n");
  });

  it("lists every file of its tenant with files(), hidden ones included, in one statement", async () => {
    const counter = new QueryCounter();
    const store = pg.store({}, counter.attach(pg.pool()));
    await create(store, "/memories/a/b.md", "12345");
    await create(store, "/memories/.hidden/c.md", "123");
    await create(store, "/memories/node_modules/x/d.md", "1");
    await create(store.scope("someone-else"), "/memories/other.md", "x");
    expect(await counter.during(() => store.files())).toBe(1);
    expect(await store.files()).toEqual([
      { path: "/memories/.hidden/c.md", size: 3 },
      { path: "/memories/a/b.md", size: 5 },
      { path: "/memories/node_modules/x/d.md", size: 1 },
    ]);
  });

  it("counts views, edits and renames as access, listings and stat not", async () => {
    const { store, advance } = clocked(10);
    for (const name of ["viewed", "edited", "unchanged", "moved", "listed"]) {
      await create(store, `/memories/dir/${name}.md`, `${name}\n`);
    }
    advance(9_000);
    await run(store, { command: "view", path: "/memories/dir/viewed.md", view_range: [1, 1] });
    await run(store, {
      command: "insert",
      path: "/memories/dir/edited.md",
      insert_line: 0,
      insert_text: "x",
    });
    await run(store, {
      command: "str_replace",
      path: "/memories/dir/unchanged.md",
      old_str: "absent",
      new_str: "y",
    });
    await run(store, {
      command: "rename",
      old_path: "/memories/dir/moved.md",
      new_path: "/memories/other/moved.md",
    });
    await run(store, { command: "view", path: "/memories/dir" });
    await store.stat("/memories/dir/listed.md");
    advance(2_000);
    const left = (await store.list(ROOT, 2))!.entries.map((entry) => entry.path).sort();
    expect(left).toEqual([
      "/memories/dir",
      "/memories/dir/edited.md",
      "/memories/dir/unchanged.md",
      "/memories/dir/viewed.md",
      "/memories/other",
      "/memories/other/moved.md",
    ]);
  });

  it("moves a whole directory as an access of every file beneath it", async () => {
    const { store, advance } = clocked(10);
    await create(store, "/memories/a/x/1.md", "1");
    await create(store, "/memories/a/2.md", "2");
    advance(9_000);
    await run(store, { command: "rename", old_path: "/memories/a", new_path: "/memories/b" });
    advance(9_000);
    expect(await store.usage()).toEqual({ files: 2, bytes: 2 });
    expect(await store.read("/memories/b/x/1.md")).not.toBeNull();
  });

  it("sweep() removes expired rows and reports them; without expiry it removes nothing", async () => {
    const { store, advance } = clocked(5);
    await create(store, "/memories/a/1.md", "111");
    await create(store, "/memories/.h/2.md", "22");
    await create(store, "/memories/3.md", "3");
    advance(3_000);
    await store.read("/memories/3.md");
    advance(3_000);
    expect(await store.sweep()).toEqual({ paths: ["/memories/.h/2.md", "/memories/a/1.md"], bytes: 5 });
    expect(await store.sweep()).toEqual({ paths: [], bytes: 0 });
    const rows = await pg.sql("SELECT path, kind FROM mem_files WHERE tenant = $1 ORDER BY path", [
      store.tenantKey,
    ]);
    expect(rows.rows).toEqual([
      { path: "/memories", kind: "r" },
      { path: "/memories/3.md", kind: "f" },
    ]);
    expect(await aggregateProblems("mem_files", store.tenantKey)).toEqual([]);
    const plain = pg.store();
    await create(plain, "/memories/a.md", "a");
    expect(await plain.sweep()).toEqual({ paths: [], bytes: 0 });
  });

  it("expires per tenant: one scope's sweep leaves the others alone", async () => {
    let now = 0;
    const root = pg.store({ expireAfterSeconds: 1, clock: () => now });
    const a = root.scope("exp-a");
    const b = root.scope("exp-b");
    await create(a, "/memories/x.md", "x");
    await create(b, "/memories/x.md", "x");
    now = 5_000;
    expect(await a.sweep()).toEqual({ paths: ["/memories/x.md"], bytes: 1 });
    const rows = await pg.sql("SELECT count(*) AS n FROM mem_files WHERE tenant = $1 AND kind = 'f'", [
      b.tenantKey,
    ]);
    expect(Number(rows.rows[0].n)).toBe(1);
  });
});

describe("atomicity", () => {
  it("shows a directory rename to concurrent readers all at once", async () => {
    const store = pg.store();
    const reader = pg.peer(store);
    for (let i = 0; i < 60; i++) await store.write(`/memories/old/f${i}`, bytes("x"), { ifAbsent: true });
    let renaming = true;
    const seen: string[] = [];
    const readers = (async () => {
      while (renaming) {
        const listing = await reader.list(ROOT, 2);
        const paths = listing!.entries.map((entry) => entry.path);
        seen.push(
          `${paths.filter((p) => p.startsWith("/memories/old/")).length}/${paths.filter((p) => p.startsWith("/memories/new/")).length}`,
        );
      }
    })();
    for (let round = 0; round < 6; round++) {
      await store.rename(
        round % 2 === 0 ? "/memories/old" : "/memories/new",
        round % 2 === 0 ? "/memories/new" : "/memories/old",
      );
    }
    renaming = false;
    await readers;
    await reader.close();
    expect(seen.length).toBeGreaterThan(0);
    for (const state of seen) expect(["60/0", "0/60"]).toContain(state);
  });
});
