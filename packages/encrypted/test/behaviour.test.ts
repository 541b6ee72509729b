import { executeCommand, InMemoryStore } from "@mem/core";
import { describe, expect, it } from "vitest";
import { EncryptedStore, OVERHEAD } from "../src/index.js";
import { run, seed, testKey } from "./helpers.js";

/** Runs the same commands on a plain store and an encrypted one; every result must be byte-identical. */
const transcriptsMatch = async (commands: Record<string, unknown>[]) => {
  const plain = new InMemoryStore();
  const encrypted = new EncryptedStore(new InMemoryStore(), { key: testKey(1) });
  const results = [];
  for (const command of commands) {
    const expected = await executeCommand(plain, command);
    const actual = await executeCommand(encrypted, command);
    expect(actual, JSON.stringify(command)).toEqual(expected);
    results.push(actual);
  }
  return results;
};

const views = (...paths: string[]) => paths.map((path) => ({ command: "view", path }));

describe("EncryptedStore behaves exactly like the store it wraps", () => {
  it("reports exact plaintext sizes for files and deep directories, hidden and node_modules left out", async () => {
    const big = "é".repeat(700); // 1400 bytes: sizes above 1K take the K format
    const results = await transcriptsMatch([
      { command: "create", path: "/memories/top.md", file_text: "top\n" },
      { command: "create", path: "/memories/a/one.txt", file_text: big },
      { command: "create", path: "/memories/a/b/c/d/deep.txt", file_text: "deep file four levels down\n" },
      { command: "create", path: "/memories/a/b/c/e.txt", file_text: "" },
      { command: "create", path: "/memories/a/.hidden/secret.txt", file_text: "hidden\n" },
      { command: "create", path: "/memories/a/node_modules/x.js", file_text: "module\n" },
      { command: "create", path: "/memories/.dot", file_text: "dot\n" },
      { command: "create", path: "/memories/only-hidden/.h", file_text: "h\n" },
      ...views("/memories", "/memories/a", "/memories/a/b", "/memories/a/b/c", "/memories/only-hidden"),
      ...views("/memories/a/one.txt", "/memories/a/.hidden/secret.txt", "/memories/.dot"),
    ]);
    expect(results[8]?.content).toContain("1.4K\t/memories/a/");
  });

  it("edits, deletes and renames (directories with hidden files included) the same way", async () => {
    await transcriptsMatch([
      { command: "create", path: "/memories/notes/todo.md", file_text: "- one\n- two\n" },
      { command: "create", path: "/memories/notes/sub/.keep", file_text: "" },
      { command: "create", path: "/memories/notes/sub/deeper/x.txt", file_text: "x\n" },
      { command: "create", path: "/memories/notes/node_modules/m.js", file_text: "m\n" },
      { command: "str_replace", path: "/memories/notes/todo.md", old_str: "one", new_str: "uno" },
      { command: "insert", path: "/memories/notes/todo.md", insert_line: 2, insert_text: "- three\n" },
      { command: "rename", old_path: "/memories/notes", new_path: "/memories/archive/2024" },
      ...views("/memories", "/memories/notes", "/memories/archive", "/memories/archive/2024/todo.md"),
      ...views("/memories/archive/2024/sub/.keep", "/memories/archive/2024/node_modules/m.js"),
      { command: "rename", old_path: "/memories/archive/2024/todo.md", new_path: "/memories/todo.md" },
      { command: "rename", old_path: "/memories/todo.md", new_path: "/memories/archive" },
      { command: "rename", old_path: "/memories/todo.md", new_path: "/memories/todo.md/x" },
      { command: "rename", old_path: "/memories/missing", new_path: "/memories/y" },
      { command: "rename", old_path: "/memories/archive", new_path: "/memories/todo.md/z" },
      { command: "create", path: "/memories/todo.md/inner", file_text: "" },
      { command: "delete", path: "/memories/archive/2024/sub" },
      ...views("/memories", "/memories/archive/2024/sub/.keep", "/memories/archive/2024/sub/deeper/x.txt"),
      { command: "delete", path: "/memories/archive" },
      ...views("/memories", "/memories/archive/2024/node_modules/m.js"),
    ]);
  });

  it("stores only ciphertext, never the plaintext or its path-independent form", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: testKey(1) });
    await seed(store, { "/memories/a.txt": "attack at dawn\n" });
    const stored = await inner.read("/memories/a.txt");
    expect(stored?.data.length).toBe(OVERHEAD + 15);
    expect(Buffer.from(stored!.data).includes("attack")).toBe(false);
    expect(await store.stat("/memories/a.txt")).toEqual({ kind: "file", size: 15 });
    expect(new TextDecoder().decode((await store.read("/memories/a.txt"))?.data)).toBe("attack at dawn\n");
  });

  it("uses a fresh nonce for every write, so equal plaintexts give different ciphertexts", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: testKey(1) });
    await seed(store, { "/memories/a.txt": "same\n" });
    const first = (await inner.read("/memories/a.txt"))!;
    const version = (await store.read("/memories/a.txt"))!.version;
    expect(version).toBe(first.version);
    await store.write("/memories/a.txt", new TextEncoder().encode("same\n"), { ifVersion: version });
    const second = (await inner.read("/memories/a.txt"))!;
    expect(Buffer.from(second.data).equals(Buffer.from(first.data))).toBe(false);
    expect(Buffer.from(second.data.subarray(21, 45)).equals(Buffer.from(first.data.subarray(21, 45)))).toBe(
      false,
    );
  });

  it("passes write conditions and versions through", async () => {
    const store = new EncryptedStore(new InMemoryStore(), { key: testKey(1) });
    const bytes = new TextEncoder().encode("v1\n");
    const { version } = await store.write("/memories/f", bytes, { ifAbsent: true });
    await expect(store.write("/memories/f", bytes, { ifAbsent: true })).rejects.toMatchObject({
      code: "ALREADY_EXISTS",
    });
    await expect(store.write("/memories/f", bytes, { ifVersion: "stale" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await expect(store.write("/memories/f/g", bytes, { ifAbsent: true })).rejects.toMatchObject({
      code: "NOT_A_DIRECTORY",
      ancestor: "/memories/f",
    });
    expect((await store.read("/memories/f"))?.version).toBe(version);
  });

  it("refuses its own bookkeeping names to the tool, and keeps the inner store's reserved names", async () => {
    const inner = new InMemoryStore();
    const withReserved = Object.assign(inner, { isReservedName: (name: string) => name === ".lock" });
    const store = new EncryptedStore(withReserved, { key: testKey(1) });
    await store.ready;
    for (const path of [
      "/memories/.mem-encrypted/kdf",
      "/memories/a/.mem-encrypted-rename",
      "/memories/x/.lock",
    ]) {
      expect(await run(store, { command: "view", path })).toEqual({
        content: `Error: The path ${path} is not allowed: it uses a reserved name`,
        isError: true,
      });
    }
    expect(store.isReservedName("notes")).toBe(false);
    expect(await run(store, { command: "view", path: "/memories" })).toEqual({
      content:
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
      isError: false,
    });
  });
});
