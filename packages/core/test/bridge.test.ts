import { describe, expect, it } from "vitest";
import {
  AlreadyExistsError,
  bridgeStore,
  executeCommand,
  InMemoryStore,
  type KeyValuePrimitives,
  type MemoryStore,
  NotFoundError,
  StoreFailureError,
} from "../src/index.js";
import { expectWriteConditions } from "./helpers/write-conditions.js";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b);

/** Primitives over a Map, counting the requests by primitive. */
class MapPrimitives implements KeyValuePrimitives {
  readonly entries = new Map<string, { value: Uint8Array; version: string }>();
  readonly requests = { get: 0, put: 0, delete: 0, list: 0 };
  #clock = 0;

  async get(key: string) {
    this.requests.get += 1;
    const entry = this.entries.get(key);
    return entry ? { ...entry } : null;
  }
  async put(key: string, value: Uint8Array, expected: string | null) {
    this.requests.put += 1;
    if ((this.entries.get(key)?.version ?? null) !== expected) return null;
    const version = String(++this.#clock);
    this.entries.set(key, { value: value.slice(), version });
    return version;
  }
  async delete(key: string, expected?: string) {
    this.requests.delete += 1;
    if (expected !== undefined && this.entries.get(key)?.version !== expected) return false;
    return this.entries.delete(key);
  }
  async list(prefix: string) {
    this.requests.list += 1;
    return [...this.entries]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, e]) => ({ key, size: e.value.byteLength }));
  }
}

describe("bridgeStore", () => {
  it("answers every command exactly as InMemoryStore does", async () => {
    const bridged = bridgeStore(new MapPrimitives());
    const reference = new InMemoryStore();
    const calls: unknown[] = [
      { command: "create", path: "/memories/notes/a.md", file_text: "alpha\n" },
      { command: "create", path: "/memories/notes/deep/b.md", file_text: "beta beta\n" },
      { command: "create", path: "/memories/notes/.hidden", file_text: "secret\n" },
      { command: "create", path: "/memories/top.txt", file_text: "top\n" },
      { command: "view", path: "/memories" },
      { command: "view", path: "/memories/notes" },
      { command: "create", path: "/memories/notes", file_text: "x" },
      { command: "create", path: "/memories/top.txt/under", file_text: "x" },
      { command: "str_replace", path: "/memories/notes/a.md", old_str: "alpha", new_str: "ALPHA" },
      { command: "insert", path: "/memories/notes/a.md", insert_line: 1, insert_text: "more\n" },
      { command: "view", path: "/memories/notes/a.md" },
      { command: "rename", old_path: "/memories/notes", new_path: "/memories/top.txt" },
      { command: "rename", old_path: "/memories/notes", new_path: "/memories/top.txt/x" },
      { command: "rename", old_path: "/memories/gone", new_path: "/memories/x" },
      { command: "rename", old_path: "/memories/notes", new_path: "/memories/archive/notes" },
      { command: "view", path: "/memories" },
      { command: "view", path: "/memories/notes" },
      { command: "delete", path: "/memories/archive" },
      { command: "delete", path: "/memories/archive" },
      { command: "view", path: "/memories" },
    ];
    for (const input of calls) {
      expect(await executeCommand(bridged, input), JSON.stringify(input)).toEqual(
        await executeCommand(reference, input),
      );
    }
    expect(await bridged.usage?.()).toEqual(await reference.usage());
    expect(await bridged.files?.()).toEqual(await reference.files());
  });

  it("keeps the write conditions and reports the ancestor nearest /memories that is a file", async () => {
    const store = bridgeStore(new MapPrimitives());
    await expectWriteConditions(store);
    await expect(store.rename("/memories/none", "/memories/x")).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.rename("/memories/d", "/memories/f")).rejects.toBeInstanceOf(AlreadyExistsError);
    expect(await store.stat("/memories/d")).toEqual({ kind: "directory" });
    expect(await store.stat("/memories/f")).toEqual({ kind: "file", size: 1 });
    expect(await store.stat("/memories/nothing")).toBeNull();
  });

  it("edits a file in one read and one conditional put", async () => {
    const kv = new MapPrimitives();
    const store = bridgeStore(kv);
    await store.write("/memories/a/b.md", bytes("one\n"), { ifAbsent: true });
    kv.requests.get = kv.requests.put = kv.requests.list = 0;
    const edit = { command: "str_replace", path: "/memories/a/b.md", old_str: "one", new_str: "two" };
    expect((await executeCommand(store, edit)).isError).toBe(false);
    expect(kv.requests).toEqual({ get: 1, put: 1, delete: 0, list: 0 });
  });

  it("moves a file that changes during a rename with its newest content, leaving no copy behind", async () => {
    const kv = new MapPrimitives();
    const store = bridgeStore(kv);
    await store.write("/memories/dir/f.md", bytes("old"), { ifAbsent: true });
    const conditionalDelete = kv.delete.bind(kv);
    let raced = false;
    kv.delete = async (key, expected) => {
      if (!raced && expected !== undefined) {
        raced = true;
        const current = kv.entries.get(key);
        await kv.put(key, bytes("new"), current?.version ?? null);
      }
      return conditionalDelete(key, expected);
    };
    await store.rename("/memories/dir", "/memories/moved");
    expect(raced).toBe(true);
    expect(text((await store.read("/memories/moved/f.md"))?.data)).toBe("new");
    expect([...kv.entries.keys()]).toEqual(["/memories/moved/f.md"]);
  });

  it("turns what a primitive throws into a StoreFailureError with a safe reason", async () => {
    const kv = new MapPrimitives();
    const store = bridgeStore(kv);
    kv.put = async () => {
      throw Object.assign(new Error("connect to secret-host:1234 failed"), { code: "ECONNRESET" });
    };
    const error = await store.write("/memories/a", bytes("a"), { ifAbsent: true }).catch((e) => e);
    expect(error).toBeInstanceOf(StoreFailureError);
    expect(error).toMatchObject({ reason: "connection reset", mayBeApplied: true });
    const result = await executeCommand(store, { command: "create", path: "/memories/a", file_text: "a" });
    expect(result).toEqual({
      content:
        "Error: create failed for /memories/a: connection reset. The change may still be applied; view /memories/a to check.",
      isError: true,
    });
    kv.list = async () => {
      throw new StoreFailureError("bucket gone");
    };
    expect(await executeCommand(store, { command: "view", path: "/memories" })).toEqual({
      content: "Error: view failed for /memories: bucket gone",
      isError: true,
    });
  });

  it("gives each tenant its own /memories under /tenants/<id>", async () => {
    const kv = new MapPrimitives();
    const store = bridgeStore(kv, { backend: "map", crossProcessSafe: true });
    const alice = store.scope?.("alice");
    const bob = store.scope?.("bob");
    if (!alice || !bob) throw new Error("scope missing");
    expect(store.scope?.("alice")).toBe(alice);
    await alice.write("/memories/a.md", bytes("alice"), { ifAbsent: true });
    await bob.write("/memories/a.md", bytes("bob!"), { ifAbsent: true });
    await alice.scope?.("nested").write("/memories/n.md", bytes("n"), { ifAbsent: true });
    expect([...kv.entries.keys()].sort()).toEqual([
      "/tenants/alice/memories/a.md",
      "/tenants/alice/tenants/nested/memories/n.md",
      "/tenants/bob/memories/a.md",
    ]);
    expect(await store.usage?.()).toEqual({ files: 0, bytes: 0 });
    expect(await alice.usage?.()).toEqual({ files: 1, bytes: 5 });
    expect(text((await bob.read("/memories/a.md"))?.data)).toBe("bob!");
    expect(() => store.scope?.("../x")).toThrow(TypeError);
    expect(store.backend).toBe("map");
    expect(store.capabilities).toEqual({ crossProcessSafe: true, atomicDirectoryRename: false });
  });

  it("refuses primitives or options of the wrong shape with a TypeError naming them", () => {
    const kv = new MapPrimitives();
    expect(() => bridgeStore({ get: kv.get, put: kv.put, delete: kv.delete } as never)).toThrow(
      new TypeError("bridgeStore: primitives.list must be a function"),
    );
    expect(() => bridgeStore(null as never)).toThrow(TypeError);
    expect(() => bridgeStore(kv, { crossProcessSafe: "yes" as never })).toThrow(/crossProcessSafe/);
    expect(() => bridgeStore(kv, { backend: "" })).toThrow(/backend/);
  });
});

describe("a store that declares no capabilities", () => {
  it("runs every command", async () => {
    const inner = new InMemoryStore();
    const bare: MemoryStore = {
      read: (p) => inner.read(p),
      stat: (p) => inner.stat(p),
      list: (d, depth, o) => inner.list(d, depth, o),
      write: (p, data, c) => inner.write(p, data, c),
      delete: (p) => inner.delete(p),
      rename: (f, t) => inner.rename(f, t),
    };
    await executeCommand(bare, { command: "create", path: "/memories/a.md", file_text: "hi\n" });
    expect(await executeCommand(bare, { command: "view", path: "/memories/a.md" })).toEqual({
      content: "Here's the content of /memories/a.md with line numbers:\n     1\thi",
      isError: false,
    });
  });
});
