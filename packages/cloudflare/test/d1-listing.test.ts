import { executeCommand, InMemoryStore, type Listing } from "@mem/core";
import { describe, expect, it } from "vitest";
import { D1Store } from "../src/index.js";
import { bindings, countingD1, freshName } from "./helpers.js";

/** Runs the same commands on the D1 store and on `InMemoryStore`: every answer must be the same bytes. */
async function both(d1: D1Store, memory: InMemoryStore, input: Record<string, unknown>, listLimit?: number) {
  const options = listLimit === undefined ? {} : { listLimit };
  const [got, want] = await Promise.all([
    executeCommand(d1, input, options),
    executeCommand(memory, input, options),
  ]);
  expect(got).toEqual(want);
  return got;
}

const views = [
  "/memories",
  "/memories/a",
  "/memories/a/b",
  "/memories/.h",
  "/memories/node_modules",
  "/memories/z",
];

const sorted = (listing: Listing | null) =>
  listing && { ...listing, entries: [...listing.entries].sort((a, b) => (a.path < b.path ? -1 : 1)) };

async function compareViews(d1: D1Store, memory: InMemoryStore) {
  for (const path of views) {
    // The counts of listed files a wrapper such as the encrypted store asks for, at one and two levels.
    for (const depth of [1, 2]) {
      expect(sorted(await d1.list(path, depth, { countFiles: true }))).toEqual(
        sorted(await memory.list(path, depth, { countFiles: true })),
      );
    }
    for (const listLimit of [undefined, 1, 2, 3, 5, 8, 1000]) {
      await both(d1, memory, { command: "view", path }, listLimit);
    }
  }
}

describe("D1Store listings from directory totals", () => {
  it("answer as InMemoryStore does, with hidden names, limits, edits, renames and deletes", async () => {
    const d1 = new D1Store(bindings.DB).scope(freshName());
    const memory = new InMemoryStore();
    const files = [
      "a/one.md",
      "a/b/two.md",
      "a/b/c/three.md",
      "a/.secret/x.md",
      "a/node_modules/y.md",
      ".h/seen.md",
      ".h/deeper/more.md",
      "node_modules/pkg/i.js",
      "a/b/.dot.md",
      "z/\u{1F600}.md",
      "z/\uFFFD.md",
      "z/Z.md",
      "z/a.md",
      "top.md",
    ];
    for (const [i, file] of files.entries()) {
      await both(d1, memory, { command: "create", path: `/memories/${file}`, file_text: "x".repeat(i + 1) });
    }
    await compareViews(d1, memory);
    await both(d1, memory, {
      command: "str_replace",
      path: "/memories/a/b/two.md",
      old_str: "xx",
      new_str: "a much longer text",
    });
    await both(d1, memory, { command: "rename", old_path: "/memories/a/b", new_path: "/memories/.h/b" });
    await compareViews(d1, memory);
    await both(d1, memory, { command: "rename", old_path: "/memories/.h", new_path: "/memories/a/b/h" });
    await both(d1, memory, {
      command: "rename",
      old_path: "/memories/top.md",
      new_path: "/memories/a/.top.md",
    });
    await compareViews(d1, memory);
    await both(d1, memory, { command: "view", path: "/memories/a/b/h/b" }, 2);
    await both(d1, memory, { command: "delete", path: "/memories/a/b" });
    await both(d1, memory, { command: "delete", path: "/memories/z/Z.md" });
    await compareViews(d1, memory);
    expect(await d1.usage()).toEqual(await memory.usage());
  });

  it("a view of a large tree reads the rows it shows, not the files beneath (rows_read counted by D1)", async () => {
    const { db, rowsRead, roundTrips } = countingD1(bindings.DB);
    const store = new D1Store(db).scope(freshName());
    const dirs = 30;
    const subdirs = 4;
    const perDir = 10;
    const memory = new InMemoryStore();
    const writes: ReturnType<typeof executeCommand>[] = [];
    for (let d = 0; d < dirs; d++) {
      for (let s = 0; s < subdirs; s++) {
        for (let f = 0; f < perDir; f++) {
          const input = { command: "create", path: `/memories/d${d}/s${s}/f${f}.md`, file_text: "note\n" };
          writes.push(executeCommand(store, input));
          await executeCommand(memory, input);
        }
      }
    }
    const created = await Promise.all(writes);
    expect(created.filter((r) => r.isError)).toEqual([]);
    const cost = async (path: string, listLimit: number) => {
      const [rows, trips] = [rowsRead(), roundTrips()];
      const result = await executeCommand(store, { command: "view", path }, { listLimit });
      expect(result).toEqual(await executeCommand(memory, { command: "view", path }, { listLimit }));
      return { rows: rowsRead() - rows, trips: roundTrips() - trips, text: result.content as string };
    };
    // 30 directories and 120 subdirectories within two levels of /memories: 150 entries.
    const small = await cost("/memories", 20);
    expect(small.trips).toBe(1);
    expect(small.text.split("\n")).toHaveLength(2 + 20 + 1);
    expect(small.text.endsWith("... 130 more entries not shown. View a subdirectory to see them.")).toBe(
      true,
    );
    const large = await cost("/memories", 100);
    expect(large.text.endsWith("... 50 more entries not shown. View a subdirectory to see them.")).toBe(true);
    // Shown entries, plus what the walk reads past the last one shown (index entries, rows, the next
    // sibling): a few times the limit, against the 1,200 files (and 150 directories) beneath.
    expect(small.rows).toBeLessThanOrEqual(5 * 20 + 10);
    expect(large.rows).toBeLessThanOrEqual(5 * 100 + 10);
    const sub = await cost("/memories/d7", 5);
    expect(sub.text.endsWith("... 39 more entries not shown. View a subdirectory to see them.")).toBe(true);
    expect(sub.rows).toBeLessThanOrEqual(5 * 5 + 10);
    // 580 more files three levels down (none in d7): the same views read the same rows.
    const deeper: Promise<unknown>[] = [];
    for (let d = 0; d < dirs; d++) {
      if (d === 7) continue;
      for (let f = 0; f < 20; f++) {
        const input = { command: "create", path: `/memories/d${d}/s0/deep/g${f}.md`, file_text: "more\n" };
        deeper.push(executeCommand(store, input));
        await executeCommand(memory, input);
      }
    }
    expect((await Promise.all(deeper)).filter((r) => (r as { isError: boolean }).isError)).toEqual([]);
    expect((await cost("/memories", 20)).rows).toBe(small.rows);
    expect((await cost("/memories", 100)).rows).toBe(large.rows);
    expect((await cost("/memories/d7", 5)).rows).toBe(sub.rows);
  });
});

describe("D1Store on a database of schema 1", () => {
  it("adds the directory totals on first use, from the files already there", async () => {
    const db = bindings.LEGACY;
    // The tables as the first release created them, with files of two tenants.
    await db.batch([
      db.prepare(`CREATE TABLE mem_files (tenant TEXT NOT NULL, path TEXT NOT NULL, content BLOB NOT NULL,
        version INTEGER NOT NULL, size INTEGER NOT NULL, accessed_at INTEGER NOT NULL, PRIMARY KEY (tenant, path))`),
      db.prepare("CREATE INDEX mem_files_access ON mem_files (tenant, accessed_at)"),
      db.prepare(
        "CREATE TABLE mem_tenants (parent TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (parent, id))",
      ),
      db.prepare("CREATE TABLE mem_guard (tenant TEXT PRIMARY KEY, ok INTEGER NOT NULL)"),
      db.prepare("CREATE TABLE mem_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)"),
      db.prepare("INSERT INTO mem_meta (key, value) VALUES ('versions', 10)"),
    ]);
    const memory = new InMemoryStore();
    const files = ["a/one.md", "a/b/two.md", "a/.h/three.md", "z.md", ".top/x.md"];
    for (const [i, file] of files.entries()) {
      const text = new TextEncoder().encode(`${file}\n`);
      await db
        .prepare("INSERT INTO mem_files VALUES (?, ?, ?, ?, ?, 0)")
        .bind("t1", `/memories/${file}`, text, i + 1, text.byteLength)
        .run();
      await memory.write(`/memories/${file}`, text, { ifAbsent: true });
    }
    await db.prepare("INSERT INTO mem_files VALUES ('t2', '/memories/other.md', x'41', 9, 1, 0)").run();
    const store = new D1Store(db).scope("t1");
    for (const path of ["/memories", "/memories/a", "/memories/.top"]) {
      for (const listLimit of [undefined, 1, 3]) {
        const options = listLimit === undefined ? {} : { listLimit };
        expect(await executeCommand(store, { command: "view", path }, options)).toEqual(
          await executeCommand(memory, { command: "view", path }, options),
        );
      }
    }
    await both(store, memory, { command: "create", path: "/memories/a/b/new.md", file_text: "new\n" });
    await both(store, memory, { command: "view", path: "/memories/a" });
    expect((await new D1Store(db).scope("t2").list("/memories", 2))?.entries).toEqual([
      { path: "/memories/other.md", kind: "file", size: 1, depth: 1 },
    ]);
  });
});
