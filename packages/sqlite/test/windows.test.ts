import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { numberedText } from "@mem/testkit";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { freshPath } from "./helpers.js";

const opened: SqliteStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
const open = (options: ConstructorParameters<typeof SqliteStore>[0]): SqliteStore => {
  const store = new SqliteStore(options);
  opened.push(store);
  return store;
};

const create = (store: MemoryStore, path: string, text: string) =>
  executeCommand(store, { command: "create", path, file_text: text });
const view = (store: MemoryStore, path: string, range: [number, number]) =>
  executeCommand(store, { command: "view", path, view_range: range });

/** Changes a file's bytes behind the store's back, leaving its version as it was. */
const tamper = (path: string, file: string, text: string) => {
  const db = new Database(path);
  // The search index's trigger calls the store's function; this connection indexes nothing.
  db.function("mem_search_form", { deterministic: true }, (_content: unknown) => null);
  try {
    db.prepare("UPDATE mem_files SET content = ? WHERE path = ?").run(Buffer.from(text), file);
  } finally {
    db.close();
  }
};

describe("view_range windows from lines kept between views", () => {
  it("shows what a whole read would, and reads only the version while it is unchanged", async () => {
    const path = freshPath();
    const store = open({ path });
    const reference = new InMemoryStore();
    const text = numberedText("a", 3_000);
    for (const s of [store, reference])
      expect((await create(s, "/memories/big.md", text)).isError).toBe(false);
    for (const range of [
      [100, 199],
      [1, 100],
      [2_950, -1],
      [3_001, 3_010],
    ] as [number, number][]) {
      expect(await view(store, "/memories/big.md", range)).toEqual(
        await view(reference, "/memories/big.md", range),
      );
    }
    // Bytes changed without a new version are not seen: the window came from the lines kept.
    tamper(path, "/memories/big.md", numberedText("tampered", 3_000));
    expect((await view(store, "/memories/big.md", [5, 5])).content).toContain("a line 5");
    // A change through any store gives a new version, and the window follows it.
    const peer = open({ path });
    await executeCommand(peer, {
      command: "insert",
      path: "/memories/big.md",
      insert_line: 0,
      insert_text: "top",
    });
    expect((await view(store, "/memories/big.md", [1, 2])).content).toBe(
      "Here's the content of /memories/big.md with line numbers:\n     1\ttop\n     2\ttampered line 1 " +
        `${"x".repeat(40)}`,
    );
    await executeCommand(peer, { command: "delete", path: "/memories/big.md" });
    expect(await view(store, "/memories/big.md", [1, 2])).toEqual({
      content: "The path /memories/big.md does not exist. Please provide a valid path.",
      isError: true,
    });
  });

  it("lets an expired file be missing although its lines were kept", async () => {
    let now = 1_000_000;
    const store = open({ path: freshPath(), expireAfterSeconds: 60, clock: () => now });
    await create(store, "/memories/big.md", numberedText("e", 3_000));
    expect((await view(store, "/memories/big.md", [1, 1])).content).toContain("e line 1");
    now += 30_000;
    expect((await view(store, "/memories/big.md", [1, 1])).content).toContain("e line 1");
    now += 61_000;
    expect((await view(store, "/memories/big.md", [1, 1])).isError).toBe(true);
  });

  it("reads the file whole when caching is off, and refuses a negative size", async () => {
    const store = open({ path: freshPath(), lineCacheBytes: 0 });
    await create(store, "/memories/big.md", numberedText("z", 3_000));
    expect(await store.readLines("/memories/big.md", 1, 2)).toBeUndefined();
    expect((await view(store, "/memories/big.md", [2, 2])).content).toContain("z line 2");
    expect(() => new SqliteStore({ path: freshPath(), lineCacheBytes: -1 })).toThrow(
      /SqliteStore: option "lineCacheBytes"/,
    );
  });
});
