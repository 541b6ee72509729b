/**
 * What runs inside the database: auto_explain logs the plan of every statement a session executes,
 * the store's function calls and every statement inside them, so counting the plans counts statements.
 */
import { executeCommand, type MemoryStore } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { bytes, QueryCounter, TestPostgres } from "./helpers.js";

let db: TestPostgres;

beforeAll(async () => {
  db = await TestPostgres.start();
});
afterAll(() => db?.stop());

const setup = async (options: { expireAfterSeconds?: number } = {}) => {
  const plans: string[] = [];
  const counter = new QueryCounter();
  const store = new PostgresStore({
    pool: counter.attach(db.explainingPool(plans)),
    table: db.freshTable(),
    tenant: "t",
    ...options,
  });
  await store.check();
  await executeCommand(store, { command: "create", path: "/memories/notes/a.md", file_text: "one\ntwo\n" });
  /** Round trips and statements executed (the call itself and those inside it) while `body` runs. */
  const measure = async (body: () => Promise<unknown>) => {
    plans.length = 0;
    const trips = await counter.during(body);
    return { trips, statements: plans.length };
  };
  return { store, measure };
};

const run = (store: MemoryStore, input: Record<string, unknown>) => executeCommand(store, input);

describe("statements per command", () => {
  it("writes in one round trip with at most four statements inside the call", async () => {
    const { store, measure } = await setup();
    const create = await measure(() =>
      run(store, { command: "create", path: "/memories/notes/deep/b.md", file_text: "b\n" }),
    );
    // The call, then lock, the erasure fence, and one statement for the file and its ancestors (no look
    // at the path first: the insert itself finds what is in the way).
    expect(create).toEqual({ trips: 1, statements: 4 });
    const edit = await measure(() =>
      store.write("/memories/notes/deep/b.md", bytes("bb\n"), { ifVersion: "0" }).catch(() => "conflict"),
    );
    // A conflict still costs one round trip: the call, the lock, the fence, the attempt, the look at why.
    expect(edit).toEqual({ trips: 1, statements: 5 });
    const replace = await measure(() =>
      run(store, { command: "str_replace", path: "/memories/notes/a.md", old_str: "one", new_str: "uno" }),
    );
    // The read (one statement), then the call, the lock, the fence and one statement for the file and its
    // ancestors.
    expect(replace).toEqual({ trips: 2, statements: 5 });
    const existing = await measure(() =>
      run(store, { command: "create", path: "/memories/notes/a.md", file_text: "x" }),
    );
    // A refused create pays the look that tells which error it is: call, lock, fence, attempt, look.
    expect(existing).toEqual({ trips: 1, statements: 5 });
  });

  it("views a file in one plain statement, a known directory in one, and learns which paths are directories", async () => {
    const { store, measure } = await setup();
    const view = (path: string) => measure(() => run(store, { command: "view", path }));
    // A file: the plain read, nothing else.
    expect(await view("/memories/notes/a.md")).toEqual({ trips: 1, statements: 1 });
    // A directory seen for the first time: the read finds no file, then the statement that lists.
    expect(await view("/memories/notes")).toEqual({ trips: 2, statements: 2 });
    // Known now: straight to the listing, as for /memories always.
    expect(await view("/memories/notes")).toEqual({ trips: 1, statements: 1 });
    expect(await view("/memories")).toEqual({ trips: 1, statements: 1 });
    // Nothing there: the read, then the listing statement, which answers for both in one snapshot.
    expect(await view("/memories/none")).toEqual({ trips: 2, statements: 2 });
    // A known directory that became a file: the listing statement answers with the file; one statement.
    await store.delete("/memories/notes");
    await store.write("/memories/notes", bytes("now a file\n"), { ifAbsent: true });
    const again = await run(store, { command: "view", path: "/memories/notes" });
    expect(again.content).toBe(
      "Here's the content of /memories/notes with line numbers:\n     1\tnow a file",
    );
    expect(await view("/memories/notes")).toEqual({ trips: 1, statements: 1 });
    // And a file that became a directory is listed.
    await store.delete("/memories/notes");
    await store.write("/memories/notes/b.md", bytes("b"), { ifAbsent: true });
    const listed = await run(store, { command: "view", path: "/memories/notes" });
    expect(listed.content.split("\n").slice(1)).toEqual(["1B\t/memories/notes", "1B\t/memories/notes/b.md"]);
  });

  it("keeps one round trip per view and write with expiry on", async () => {
    const { store, measure } = await setup({ expireAfterSeconds: 3600 });
    expect((await measure(() => run(store, { command: "view", path: "/memories/notes/a.md" }))).trips).toBe(
      1,
    );
    expect((await measure(() => run(store, { command: "view", path: "/memories/notes" }))).trips).toBe(1);
    const created = await measure(() =>
      run(store, { command: "create", path: "/memories/notes/c.md", file_text: "c\n" }),
    );
    expect(created.trips).toBe(1);
  });
});

describe("listing limit", () => {
  it("sends only the first entries in view's order and counts the rest", async () => {
    const { store } = await setup();
    const names = ["b", "a-c", "a", "Z", "é", "a.d"];
    for (const name of names) {
      await store.write(`/memories/l/${name}/f`, bytes("x"), { ifAbsent: true });
      await store.write(`/memories/l/${name}.md`, bytes("xy"), { ifAbsent: true });
    }
    await store.write("/memories/l/.hidden/f", bytes("h"), { ifAbsent: true });
    const whole = await store.list("/memories/l", 2);
    expect(whole?.entries).toHaveLength(names.length * 3);
    const limited = await store.list("/memories/l", 2, { limit: 5 });
    expect(limited?.omitted).toBe(names.length * 3 - 5);
    expect(limited?.size).toBe(whole?.size);
    expect(limited?.entries.map((entry) => entry.path)).toEqual([
      "/memories/l/Z",
      "/memories/l/Z/f",
      "/memories/l/Z.md",
      "/memories/l/a",
      "/memories/l/a/f",
    ]);
    // The text of the view is the same as from a complete listing.
    const view = await run(store, { command: "view", path: "/memories/l" });
    const limitedView = await executeCommand(
      store,
      { command: "view", path: "/memories/l" },
      { listLimit: 5 },
    );
    expect(view.content.split("\n").slice(0, 7)).toEqual(limitedView.content.split("\n").slice(0, 7));
    expect(limitedView.content.split("\n").at(-1)).toContain(String(names.length * 3 - 5));
    const found = await store.readOrList("/memories/l", 2, { limit: 2 });
    expect(found?.kind === "directory" && found.listing.omitted).toBe(names.length * 3 - 2);
  });

  it("sends every entry when a name orders differently by UTF-16 code units", async () => {
    const { store } = await setup();
    // U+FF21 sorts after U+1F600 by UTF-16 code units, before it by code points.
    for (const name of ["\uFF21", "\u{1F600}", "a", "b"]) {
      await store.write(`/memories/u/${name}`, bytes("x"), { ifAbsent: true });
    }
    const limited = await store.list("/memories/u", 1, { limit: 2 });
    expect(limited?.entries).toHaveLength(4);
    expect(limited?.omitted).toBeUndefined();
    const view = await executeCommand(store, { command: "view", path: "/memories/u" }, { listLimit: 3 });
    expect(view.content.split("\n").slice(2)).toEqual([
      "1B\t/memories/u/a",
      "1B\t/memories/u/b",
      "1B\t/memories/u/\u{1F600}",
      "... 1 more entries not shown. View a subdirectory to see them.",
    ]);
  });
});

describe("edits of a busy file", () => {
  it("stop racing after a lost race: the edit takes the tenant's lock and lands once", async () => {
    const table = db.freshTable();
    const counter = new QueryCounter();
    const store = new PostgresStore({ pool: counter.attach(db.pool({ max: 2 })), table, tenant: "busy" });
    await store.write("/memories/log.md", bytes("a\n"), { ifAbsent: true });
    const version = (await store.read("/memories/log.md"))!.version;
    const before = counter.texts.length;
    // Another session holds the tenant's lock: the edit's optimistic write waits behind it.
    const blocker = db.pool({ max: 1 });
    const other = await blocker.connect();
    await other.query("BEGIN");
    await other.query(`SELECT "public"."${table}_lock"($1)`, [store.tenantKey]);
    const calls: string[] = [];
    const editing = store.update("/memories/log.md", (data) => {
      calls.push(new TextDecoder().decode(data));
      return bytes(`${new TextDecoder().decode(data)}edit\n`);
    });
    for (let i = 0; i < 200; i++) {
      const waiting = await db.sql("SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted");
      if (waiting.rows[0].n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Meanwhile the other session changes the file and lets go: the edit's version no longer matches.
    await other.query(
      `SELECT * FROM "public"."${table}_write"($1, $2, $3, $4, $5, $6, NULL, NULL, NULL, true)`,
      [store.tenantKey, "/memories/log.md", ["/memories"], Buffer.from("b\n"), version, Date.now()],
    );
    await other.query("COMMIT");
    other.release();
    expect(await editing).toBe(true);
    expect(calls).toEqual(["a\n", "b\n"]);
    expect(new TextDecoder().decode((await store.read("/memories/log.md"))!.data)).toBe("b\nedit\n");
    // The read and the lost write, then the transaction: lock, read, write.
    expect(counter.texts.slice(before).filter((text) => text === "BEGIN")).toHaveLength(1);
  });

  it("loses no line when 24 agents insert into one file at once, and they share reads and writes", async () => {
    const counter = new QueryCounter();
    const pool = counter.attach(db.pool({ max: 8 }));
    const table = db.freshTable();
    const store = new PostgresStore({ pool, table, tenant: "hot" });
    await store.write("/memories/log.md", bytes("# log\n"), { ifAbsent: true });
    const before = counter.texts.length;
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        executeCommand(store, {
          command: "insert",
          path: "/memories/log.md",
          insert_line: 1,
          insert_text: `line ${i}`,
        }),
      ),
    );
    expect(results.filter((result) => result.isError)).toEqual([]);
    const sent = counter.texts.slice(before);
    const text = new TextDecoder().decode((await store.read("/memories/log.md"))!.data);
    // In arrival order, each after the header: the last one first.
    expect(text).toBe(`# log\n${Array.from({ length: 24 }, (_, i) => `line ${23 - i}\n`).join("")}`);
    // The first edit reads and writes alone; the 23 that arrived meanwhile share one read and one write
    // (one round trip each, against 48 for an edit at a time), with no race left to lock for.
    expect(sent).toHaveLength(4);
    expect(sent).not.toContain("BEGIN");
    // Stores of their own over the same pool and table take the same turns.
    const others = Array.from({ length: 6 }, () => new PostgresStore({ pool, table, tenant: "hot" }));
    await Promise.all(others.map((other) => other.check()));
    const mark = counter.texts.length;
    await Promise.all(
      others.map((other, i) =>
        other.update("/memories/log.md", (data) => bytes(`${new TextDecoder().decode(data)}tail ${i}\n`)),
      ),
    );
    expect(counter.texts.length - mark).toBe(4);
    expect(new TextDecoder().decode((await store.read("/memories/log.md"))!.data)).toMatch(
      /tail 0\ntail 1\ntail 2\ntail 3\ntail 4\ntail 5\n$/,
    );
  });
});

describe("prepared statements", () => {
  it("prepares each statement once per connection and runs it again by name", async () => {
    const pool = db.pool({ max: 1 });
    const store = new PostgresStore({ pool, table: db.freshTable(), tenant: "t" });
    await store.check();
    for (let i = 0; i < 3; i++) {
      await run(store, { command: "create", path: `/memories/f${i}.md`, file_text: "x\n" });
      await run(store, { command: "view", path: `/memories/f${i}.md` });
      await run(store, { command: "str_replace", path: `/memories/f${i}.md`, old_str: "x", new_str: "y" });
    }
    await run(store, { command: "view", path: "/memories" });
    // The one connection's own prepared statements: what the store ran went by name, not by text.
    const { rows } = await pool.query<{ name: string; runs: string }>(
      "SELECT name, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE name LIKE 'mem:%'",
    );
    const runs = new Map(
      rows.map((row) => [row.name.slice(row.name.lastIndexOf(":") + 1), Number(row.runs)]),
    );
    // Three creates and three edits write; the edits read first, and so do the three file views (the
    // plain read); one listing. Each prepared once on this connection and run as often as the store used it.
    expect(runs.get("write")).toBe(6);
    expect(runs.get("read")).toBe(6);
    expect(runs.has("view")).toBe(false);
    expect(runs.get("list")).toBe(1);
  });
});

describe("content on the wire", () => {
  it("reads UTF-8 files back as text, about their own size, and other bytes exactly as bytea", async () => {
    const pool = db.pool({ max: 1 });
    const table = db.freshTable();
    const store = new PostgresStore({ pool, table, tenant: "wire" });
    const text = `${"héllo wörld, ".repeat(800)}\n`;
    const files: [string, Uint8Array][] = [
      ["/memories/text.md", bytes(text)],
      ["/memories/nul.bin", new Uint8Array([97, 0, 98])],
      ["/memories/latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9])],
      ["/memories/empty.md", new Uint8Array()],
    ];
    for (const [path, data] of files) await store.write(path, data, { ifAbsent: true });
    const marks = await db.sql(`SELECT path, utf8 FROM ${table} WHERE kind = 'f' ORDER BY path`);
    expect(marks.rows).toEqual([
      { path: "/memories/empty.md", utf8: true },
      { path: "/memories/latin1.txt", utf8: false },
      { path: "/memories/nul.bin", utf8: false },
      { path: "/memories/text.md", utf8: true },
    ]);
    for (const [path, data] of files) {
      expect((await store.read(path))?.data, path).toEqual(data);
      const found = await store.readOrList(path, 2);
      expect(found?.kind === "file" && found.file.data, path).toEqual(data);
    }
    // Bytes the one connection received for a read of the 13 KB text file: its size and the message
    // framing, not the twice-as-long hex of bytea.
    const client = await pool.connect();
    const socket = (client as unknown as { connection: { stream: { bytesRead: number } } }).connection.stream;
    client.release();
    const before = socket.bytesRead;
    await store.read("/memories/text.md");
    const received = socket.bytesRead - before;
    const size = bytes(text).length;
    expect(received).toBeGreaterThan(size);
    expect(received).toBeLessThan(size + 400);
    // An edit through core keeps the mark right for what it writes.
    await executeCommand(store, {
      command: "str_replace",
      path: "/memories/text.md",
      old_str: "\n",
      new_str: "\u0000",
    });
    expect((await db.sql(`SELECT utf8 FROM ${table} WHERE path = '/memories/text.md'`)).rows[0].utf8).toBe(
      false,
    );
    expect((await store.read("/memories/text.md"))?.data).toEqual(
      bytes(`${"héllo wörld, ".repeat(800)}\u0000`),
    );
  });
});
