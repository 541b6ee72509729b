import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { executeCommand, limitListing, StoreFailureError } from "@mem/core";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SCHEMA_VERSION, SqliteStore } from "../src/index.js";
import { bytes, freshPath, textOf } from "./helpers.js";

const open: SqliteStore[] = [];
const fresh = (options: Partial<{ expireAfterSeconds: number; clock: () => number }> = {}) => {
  const store = new SqliteStore({ path: freshPath(), ...options });
  open.push(store);
  return store;
};
afterEach(async () => {
  for (const store of open.splice(0)) {
    await store.close();
    rmSync(dirname(store.path!), { recursive: true, force: true });
  }
});

describe("options", () => {
  it("names the option in a TypeError and never echoes its value", () => {
    const make = (options: unknown) => () => new SqliteStore(options as never);
    expect(make(undefined)).toThrow("SqliteStore: options must be an object, not undefined");
    expect(make({})).toThrow('SqliteStore: give exactly one of the options "path" or "database"');
    expect(make({ path: "a.db", database: {} })).toThrow(/exactly one/);
    expect(make({ path: "" })).toThrow('SqliteStore: option "path" must be a non-empty string');
    expect(make({ database: { secret: "hunter2" } })).toThrow(
      'SqliteStore: option "database" must be an open better-sqlite3 Database',
    );
    expect(make({ path: "a.db", busyTimeoutMs: -1 })).toThrow(/option "busyTimeoutMs" must be an integer/);
    expect(make({ path: "a.db", expireAfterSeconds: 0 })).toThrow(/expireAfterSeconds/);
  });
});

describe("a database handed over with defaultSafeIntegers on", () => {
  it("answers as any other: the store's statements read numbers, not BigInts", async () => {
    const database = new Database(":memory:");
    database.defaultSafeIntegers(true);
    const root = new SqliteStore({ database });
    const store = root.scope("t");
    const run = async (input: Record<string, unknown>) =>
      (await executeCommand(store, input, { maxFiles: 10, maxTotalBytes: 1_000 })).content;
    expect(await run({ command: "create", path: "/memories/a.md", file_text: "one\ntwo\n" })).toBe(
      "File created successfully at: /memories/a.md",
    );
    expect(
      await run({ command: "str_replace", path: "/memories/a.md", old_str: "one", new_str: "1" }),
    ).toContain("The memory file has been edited.");
    expect(await run({ command: "create", path: "/memories/b.md", file_text: "b" })).toBe(
      "File created successfully at: /memories/b.md",
    );
    expect(await store.usage()).toEqual({ files: 2, bytes: 7 });
    expect(await store.files()).toEqual([
      { path: "/memories/a.md", size: 6 },
      { path: "/memories/b.md", size: 1 },
    ]);
    const [tenant] = (await root.tenants()).tenants;
    expect([tenant?.id, tenant?.files, tenant?.bytes, typeof tenant?.lastAccess]).toEqual([
      "t",
      2,
      7,
      "number",
    ]);
    expect(typeof (await store.read("/memories/b.md"))?.version).toBe("string");
    await root.close();
    database.close();
  });
});

describe("tenants", () => {
  it("nest: scope(a).scope(b) is neither scope(b) nor scope(a), and the store sees none of them", async () => {
    const store = fresh();
    const ab = store.scope("a").scope("b");
    expect([store.backend, ab.backend]).toEqual(["sqlite", "sqlite"]);
    await ab.write("/memories/x.md", bytes("ab"), { ifAbsent: true });
    await store.scope("b").write("/memories/x.md", bytes("b"), { ifAbsent: true });
    expect(textOf((await ab.read("/memories/x.md"))?.data)).toBe("ab");
    expect(textOf((await store.scope("b").read("/memories/x.md"))?.data)).toBe("b");
    expect(await store.scope("a").read("/memories/x.md")).toBeNull();
    expect(await store.read("/memories/x.md")).toBeNull();
    expect(await store.usage()).toEqual({ files: 0, bytes: 0 });
    expect(await store.files()).toEqual([]);
    expect(await store.delete("/memories")).toBe(false);
    expect(await ab.usage()).toEqual({ files: 1, bytes: 2 });
    expect(ab.scopeChain).toEqual(["a", "b"]);
    expect(() => store.scope("a/b")).toThrow(TypeError);
  });
});

describe("listings that cost what they show", () => {
  const seed = async (store: SqliteStore) => {
    for (let d = 0; d < 4; d++) {
      for (let f = 0; f < 30; f++) {
        await store.write(`/memories/d${d}/f${String(f).padStart(2, "0")}.md`, bytes("x".repeat(f + 1)), {
          ifAbsent: true,
        });
      }
    }
    await store.write("/memories/.hidden/h.md", bytes("hidden"), { ifAbsent: true });
    await store.write("/memories/\u{1F600}.md", bytes("astral"), { ifAbsent: true });
    await store.write("/memories/\uFF21.md", bytes("fullwidth"), { ifAbsent: true });
  };

  it("returns exactly the first `limit` entries in view's order, the rest counted, sizes exact", async () => {
    const store = fresh();
    await seed(store);
    const full = await store.list("/memories", 2);
    for (const limit of [1, 5, 31, 50, 123, 124, 200]) {
      const limited = await store.list("/memories", 2, { limit });
      const expected = limitListing("/memories", full!, limit);
      expect(limited?.size).toBe(full?.size);
      expect(limited?.entries).toEqual(expected.entries);
      expect(limited?.omitted ?? 0).toBe(expected.omitted ?? 0);
    }
    // View's order is by UTF-16 code units: the emoji (0xD83D 0xDE00) comes before U+FF21, unlike in UTF-8.
    const names = (await store.list("/memories", 1, { limit: 10 }))!.entries.map((e) => e.path);
    expect(names.slice(-2)).toEqual(["/memories/\u{1F600}.md", "/memories/\uFF21.md"]);
  });

  it("counts listed files beneath each directory with countFiles, hidden ones left out", async () => {
    const store = fresh();
    await seed(store);
    const listing = await store.list("/memories", 1, { countFiles: true });
    expect(listing?.files).toBe(122);
    expect(listing?.entries.find((e) => e.path === "/memories/d1")?.files).toBe(30);
    expect(await store.usage()).toEqual({ files: 123, bytes: 4 * 465 + 6 + 6 + 9 });
  });

  it("answers readOrList with a file or a listing in one request", async () => {
    const store = fresh();
    await seed(store);
    const file = await store.readOrList("/memories/d0/f00.md", 2);
    expect(file?.kind === "file" && textOf(file.file.data)).toBe("x");
    const dir = await store.readOrList("/memories/d0", 1, { limit: 3 });
    expect(dir?.kind === "directory" && [dir.listing.entries.length, dir.listing.omitted]).toEqual([3, 27]);
    expect(await store.readOrList("/memories/nothing", 2)).toBeNull();
  });
});

describe("large reads", () => {
  // Byte for byte through Buffer.equals: vitest's deep equality walks a 1 MiB array element by element,
  // which took 10–43 s of this test's time.
  const same = (a: Uint8Array | undefined | false, b: Uint8Array): boolean =>
    a instanceof Uint8Array && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

  it(
    "come back whole from the database thread, each in a buffer of its own, independent of one another",
    {
      timeout: 120_000,
    },
    async () => {
      const store = fresh();
      const data = new Uint8Array(1024 * 1024 + 3).map((_, i) => (i * 7) % 251);
      await store.write("/memories/big.bin", data, { ifAbsent: true });
      const first = await store.read("/memories/big.bin");
      const second = await store.readOrList("/memories/big.bin", 2);
      expect(same(first?.data, data)).toBe(true);
      // The memory handed over is the file's alone: no pool shared with other data.
      expect(first?.data.byteOffset).toBe(0);
      expect(first?.data.buffer.byteLength).toBe(data.byteLength);
      expect(same(second?.kind === "file" && second.file.data, data)).toBe(true);
      first!.data.fill(0);
      expect(same((await store.read("/memories/big.bin"))?.data, data)).toBe(true);
      // Small files are copied as before, and come back whole too.
      await store.write("/memories/small.txt", bytes("hi\n"), { ifAbsent: true });
      expect(textOf((await store.read("/memories/small.txt"))!.data)).toBe("hi\n");
    },
  );
});

describe("the database file", () => {
  it("records its schema version and refuses one made by a newer release", async () => {
    const store = fresh();
    await store.check();
    const db = new Database(store.path!);
    expect(db.prepare("SELECT value FROM mem_meta WHERE key = 'schema'").pluck().get()).toBe(SCHEMA_VERSION);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.prepare("UPDATE mem_meta SET value = ? WHERE key = 'schema'").run(SCHEMA_VERSION + 1);
    db.close();
    const later = new SqliteStore({ path: store.path! });
    open.push(later);
    await expect(later.check()).rejects.toThrow("the database was created by a newer release of @mem/sqlite");
  });

  it("fails with a safe reason when the file cannot be used, and recovers once it can", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mem-sqlite-bad-"));
    const path = join(dir, "secret-name.db");
    writeFileSync(path, "this is not a database, it is long enough to have a header of sorts....");
    const store = new SqliteStore({ path });
    const failure = await store.check().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreFailureError);
    expect((failure as StoreFailureError).reason).toBe("the database file is damaged");
    const result = await executeCommand(store, { command: "view", path: "/memories" });
    expect(result.content).toBe("Error: view failed for /memories: the database file is damaged");
    rmSync(path);
    await store.check();
    await store.close();
    const missing = new SqliteStore({ path: join(dir, "no", "such", "dir.db") });
    await expect(missing.check()).rejects.toThrow("cannot open the database file");
    await missing.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers every command after close() with a failure, never a hang", async () => {
    const store = new SqliteStore({ path: freshPath() });
    await store.write("/memories/a.md", bytes("a"), { ifAbsent: true });
    await store.close();
    await expect(store.read("/memories/a.md")).rejects.toThrow("the store is closed");
    rmSync(dirname(store.path!), { recursive: true, force: true });
  });

  it("commits the changes that arrive together in one transaction, each still answered on its own", async () => {
    const store = fresh();
    const results = await Promise.allSettled([
      store.write("/memories/a.md", bytes("1"), { ifAbsent: true }),
      store.write("/memories/a.md", bytes("2"), { ifAbsent: true }),
      store.write("/memories/a.md/b.md", bytes("3"), { ifAbsent: true }),
      store.write("/memories/c.md", bytes("4"), { ifAbsent: true }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect(await store.files()).toEqual([
      { path: "/memories/a.md", size: 1 },
      { path: "/memories/c.md", size: 1 },
    ]);
  });
});

describe("edits of one file in one process", () => {
  it("are applied one after the other to the same bytes, each answered by its own result", async () => {
    const store = fresh();
    await executeCommand(store, { command: "create", path: "/memories/log.md", file_text: "END\n" });
    const inserts = Array.from({ length: 20 }, (_, i) =>
      executeCommand(store, {
        command: "insert",
        path: "/memories/log.md",
        insert_line: 0,
        insert_text: `l${i}\n`,
      }),
    );
    const missing = executeCommand(store, {
      command: "str_replace",
      path: "/memories/log.md",
      old_str: "absent",
      new_str: "x",
    });
    const results = await Promise.all([...inserts, missing]);
    expect(results.slice(0, 20).every((result) => !result.isError)).toBe(true);
    expect(results[20]).toEqual({
      content: "No replacement was performed, old_str `absent` did not appear verbatim in /memories/log.md.",
      isError: true,
    });
    const lines = textOf((await store.read("/memories/log.md"))?.data)?.split("\n") ?? [];
    expect(lines.filter((line) => line.startsWith("l")).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `l${i}`).sort(),
    );
    expect(await store.update("/memories/none.md", () => bytes("x"))).toBe(false);
  });
});

describe("opening one new file from many connections at once", () => {
  it("creates the schema once and every connection works", async () => {
    const path = freshPath();
    const stores = Array.from({ length: 8 }, () => new SqliteStore({ path }));
    await Promise.all(stores.map((store) => store.check()));
    await Promise.all(
      stores.map((store, i) => store.write(`/memories/${i}.md`, bytes(`${i}`), { ifAbsent: true })),
    );
    expect(await stores[0]!.usage()).toEqual({ files: 8, bytes: 8 });
    await Promise.all(stores.map((store) => store.close()));
    rmSync(dirname(path), { recursive: true, force: true });
  });
});
