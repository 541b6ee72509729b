import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  type MemoryStore,
  NotFoundError,
  type Usage,
} from "@mem/core";
import { memoryTool } from "@mem/core/anthropic";
import { FsStore } from "@mem/fs";
import { describe, expect, it } from "vitest";
import { HISTORY_NAME, type HistoryEvent, HistoryStore } from "../src/index.js";

const text = (data: Uint8Array | null | undefined) => (data ? new TextDecoder().decode(data) : null);
const run = (store: MemoryStore, input: object) => executeCommand(store, input);
const content = async (store: MemoryStore, path: string) => text((await store.read(path))?.data);
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A fake clock the test moves by hand. */
const clockAt = (start: number) => {
  let now = start;
  return {
    clock: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
};

describe("HistoryStore", () => {
  it("lists earlier versions newest first, reads them, and restores one as a new, undoable version", async () => {
    const time = clockAt(Date.UTC(2026, 10, 23));
    const store = new HistoryStore(new InMemoryStore(), { clock: time.clock });
    const path = "/memories/notes.md";
    await run(store, { command: "create", path, file_text: "v1\n" });
    expect(await store.versions(path)).toEqual([]);
    time.advance(1000);
    await run(store, { command: "str_replace", path, old_str: "v1", new_str: "v2" });
    time.advance(1000);
    await run(store, { command: "insert", path, insert_line: 1, insert_text: "v3" });

    const versions = await store.versions(path);
    expect(versions.map((v) => [v.time, v.size])).toEqual([
      [Date.UTC(2026, 10, 23) + 2000, 3],
      [Date.UTC(2026, 10, 23) + 1000, 3],
    ]);
    expect(text(await store.readVersion(path, versions[0]!.id))).toBe("v2\n");
    expect(text(await store.readVersion(path, versions[1]!.id))).toBe("v1\n");

    time.advance(1000);
    const { replacedVersionId } = await store.restore(path, versions[1]!.id);
    expect(await content(store, path)).toBe("v1\n");
    expect(text(await store.readVersion(path, replacedVersionId!))).toBe("v2\nv3\n");
    // The restore is undone by restoring what it replaced.
    await store.restore(path, replacedVersionId!);
    expect(await content(store, path)).toBe("v2\nv3\n");
    expect((await store.versions(path)).length).toBe(4);
  });

  it("restores a deleted file and the files of a deleted directory", async () => {
    const store = new HistoryStore(new InMemoryStore());
    await run(store, { command: "create", path: "/memories/a.md", file_text: "alpha\n" });
    await run(store, { command: "create", path: "/memories/d/x.md", file_text: "x\n" });
    await run(store, { command: "create", path: "/memories/d/e/y.md", file_text: "y\n" });
    await run(store, { command: "delete", path: "/memories/a.md" });
    await run(store, { command: "delete", path: "/memories/d" });
    expect(await store.stat("/memories/d")).toBeNull();

    expect(await store.paths()).toEqual(["/memories/a.md", "/memories/d/e/y.md", "/memories/d/x.md"]);
    expect(await store.paths("/memories/d")).toEqual(["/memories/d/e/y.md", "/memories/d/x.md"]);
    for (const path of await store.paths()) {
      const [last] = await store.versions(path);
      expect(await store.restore(path, last!.id)).toEqual({ replacedVersionId: undefined });
    }
    expect(await content(store, "/memories/a.md")).toBe("alpha\n");
    expect(await content(store, "/memories/d/x.md")).toBe("x\n");
    expect(await content(store, "/memories/d/e/y.md")).toBe("y\n");
  });

  it("restores the files of a renamed directory at their old paths", async () => {
    const store = new HistoryStore(new InMemoryStore());
    await run(store, { command: "create", path: "/memories/old/a.md", file_text: "a\n" });
    await run(store, { command: "create", path: "/memories/old/sub/b.md", file_text: "b\n" });
    await run(store, { command: "rename", old_path: "/memories/old", new_path: "/memories/new" });
    await run(store, { command: "str_replace", path: "/memories/new/a.md", old_str: "a", new_str: "A" });

    for (const path of await store.paths("/memories/old")) {
      const [last] = await store.versions(path);
      await store.restore(path, last!.id);
    }
    expect(await content(store, "/memories/old/a.md")).toBe("a\n");
    expect(await content(store, "/memories/old/sub/b.md")).toBe("b\n");
    expect(await content(store, "/memories/new/a.md")).toBe("A\n");
    const [beforeEdit] = await store.versions("/memories/new/a.md");
    expect(text(await store.readVersion("/memories/new/a.md", beforeEdit!.id))).toBe("a\n");
  });

  it("keeps hidden and node_modules files beneath a deleted or renamed directory", async () => {
    const store = new HistoryStore(new InMemoryStore());
    await store.write("/memories/d/.secret", new TextEncoder().encode("s\n"), { ifAbsent: true });
    await store.write("/memories/d/node_modules/m.js", new TextEncoder().encode("m\n"), { ifAbsent: true });
    await store.write("/memories/d/shown.md", new TextEncoder().encode("v\n"), { ifAbsent: true });
    await store.write("/memories/e/.hidden", new TextEncoder().encode("h\n"), { ifAbsent: true });
    await run(store, { command: "delete", path: "/memories/d" });
    await run(store, { command: "rename", old_path: "/memories/e", new_path: "/memories/f" });
    expect(await store.paths()).toEqual([
      "/memories/d/.secret",
      "/memories/d/node_modules/m.js",
      "/memories/d/shown.md",
      "/memories/e/.hidden",
    ]);
    for (const path of await store.paths()) {
      const [last] = await store.versions(path);
      await store.restore(path, last!.id);
    }
    expect(await content(store, "/memories/d/.secret")).toBe("s\n");
    expect(await content(store, "/memories/d/node_modules/m.js")).toBe("m\n");
    expect(await content(store, "/memories/e/.hidden")).toBe("h\n");
    expect(await content(store, "/memories/f/.hidden")).toBe("h\n");
  });

  it("keeps only the listed files beneath a deleted directory over a store without files()", async () => {
    class NoFiles extends ForwardingStore {}
    const store = new HistoryStore(new NoFiles(new InMemoryStore()));
    await store.write("/memories/d/.secret", new TextEncoder().encode("s\n"), { ifAbsent: true });
    await store.write("/memories/d/shown.md", new TextEncoder().encode("v\n"), { ifAbsent: true });
    await run(store, { command: "delete", path: "/memories/d" });
    expect(await store.paths()).toEqual(["/memories/d/shown.md"]);
  });

  it("keeps nothing for commands that fail", async () => {
    const store = new HistoryStore(new InMemoryStore());
    await run(store, { command: "create", path: "/memories/a", file_text: "a" });
    await run(store, { command: "create", path: "/memories/b", file_text: "b" });
    const refused = await run(store, { command: "rename", old_path: "/memories/a", new_path: "/memories/b" });
    expect(refused.isError).toBe(true);
    await run(store, { command: "str_replace", path: "/memories/a", old_str: "zz", new_str: "y" });
    await run(store, { command: "delete", path: "/memories/missing" });
    expect(await store.paths()).toEqual([]);
  });

  it("bounds versions by count and by age", async () => {
    const time = clockAt(Date.UTC(2026, 0, 1));
    const inner = new InMemoryStore();
    const store = new HistoryStore(inner, { maxVersions: 3, maxAgeSeconds: 3600, clock: time.clock });
    const path = "/memories/n";
    await run(store, { command: "create", path, file_text: "0" });
    for (let i = 1; i <= 20; i++) {
      time.advance(60_000);
      await run(store, { command: "str_replace", path, old_str: String(i - 1), new_str: String(i) });
    }
    const newest = await store.versions(path);
    expect(await Promise.all(newest.map(async (v) => text(await store.readVersion(path, v.id))))).toEqual([
      "19",
      "18",
      "17",
    ]);
    await store.prune();
    const kept = await inner.list(`/memories/${HISTORY_NAME}`, 2);
    // 3 versions, the path file and the running total of the versions' bytes ("19", "18", "17"); and the
    // change log's 21 records, bounded by age alone
    const log = `/memories/${HISTORY_NAME}/log/`;
    expect(kept?.entries.filter((e) => e.kind === "file" && !e.path.startsWith(log))).toHaveLength(3 + 2);
    expect(kept?.entries.filter((e) => e.path.startsWith(log))).toHaveLength(21);
    expect(await content(inner, `/memories/${HISTORY_NAME}/bytes`)).toBe("6");

    time.advance(2 * 3600_000);
    expect(await store.versions(path)).toEqual([]);
    await store.prune();
    expect(
      (await inner.list(`/memories/${HISTORY_NAME}`, 2))?.entries.filter((e) => e.kind === "file"),
    ).toHaveLength(2);
    expect(await content(inner, `/memories/${HISTORY_NAME}/bytes`)).toBe("0");
  });

  it("is invisible to the model: reserved name, listings and sizes unchanged", async () => {
    const plain = new InMemoryStore();
    const store = new HistoryStore(new InMemoryStore());
    const commands = [
      { command: "create", path: "/memories/a/one.md", file_text: "one\n" },
      { command: "str_replace", path: "/memories/a/one.md", old_str: "one", new_str: "uno" },
      { command: "create", path: "/memories/b.md", file_text: "b".repeat(2000) },
      { command: "delete", path: "/memories/b.md" },
    ];
    for (const input of commands) expect(await run(store, input)).toEqual(await run(plain, input));
    const view = { command: "view", path: "/memories" };
    expect(await run(store, view)).toEqual(await run(plain, view));
    expect((await store.list("/memories", 2))?.size).toBe(4);

    const reserved = `/memories/${HISTORY_NAME}`;
    for (const input of [
      { command: "view", path: reserved },
      { command: "create", path: `${reserved}/x`, file_text: "x" },
      { command: "delete", path: reserved },
      { command: "rename", old_path: "/memories/a", new_path: `${reserved}/a` },
    ]) {
      const raw = "path" in input ? input.path : input.new_path;
      expect(await run(store, input)).toEqual({
        content: `Error: The path ${raw} is not allowed: it uses a reserved name`,
        isError: true,
      });
    }
  });

  it("can keep history in a second store, leaving the wrapped one untouched", async () => {
    const inner = new InMemoryStore();
    const side = new InMemoryStore();
    const store = new HistoryStore(inner, { history: side });
    expect(store.isReservedName(HISTORY_NAME)).toBe(false);
    await run(store, { command: "create", path: "/memories/a", file_text: "1" });
    await run(store, { command: "str_replace", path: "/memories/a", old_str: "1", new_str: "2" });
    expect((await inner.list("/memories", 5))?.entries.map((e) => e.path)).toEqual(["/memories/a"]);
    expect(await inner.stat(`/memories/${HISTORY_NAME}`)).toBeNull();
    const [v] = await store.versions("/memories/a");
    expect(text(await store.readVersion("/memories/a", v!.id))).toBe("1");
    // The path's directory, the running total and the change log.
    expect((await side.list("/memories", 1))?.entries.map((e) => e.path.slice(10)).sort()).toEqual([
      expect.stringMatching(/^[0-9a-f]{40}$/),
      "bytes",
      "log",
    ]);
  });

  it("refuses unknown version ids and bad options", async () => {
    const store = new HistoryStore(new InMemoryStore());
    await run(store, { command: "create", path: "/memories/a", file_text: "1" });
    expect(await store.readVersion("/memories/a", "../../a")).toBeNull();
    await expect(store.restore("/memories/a", "0000000000-0000-00000000")).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const inner = new InMemoryStore();
    expect(() => new HistoryStore(inner, { maxVersions: 0 })).toThrow(
      "maxVersions must be a positive integer",
    );
    expect(() => new HistoryStore(inner, { maxAgeSeconds: -1 })).toThrow(
      "maxAgeSeconds must be a positive number",
    );
    expect(() => new HistoryStore(inner, { history: inner })).toThrow(TypeError);
    expect(() => new HistoryStore(inner, { onChange: 5 as never })).toThrow("onChange must be a function");
  });
});

/** A store with tenants and usage, as the built-in stores have them. */
class TenantStore extends ForwardingStore {
  readonly #tenants = new Map<string, InMemoryStore>();
  scope(tenant: string): MemoryStore {
    if (!this.#tenants.has(tenant)) this.#tenants.set(tenant, new InMemoryStore());
    return new TenantStore(this.#tenants.get(tenant)!);
  }
  override async usage(): Promise<Usage> {
    const listing = await this.inner.list("/memories", 1024);
    const hidden = await this.inner.list(`/memories/${HISTORY_NAME}`, 1024);
    const files = [...(listing?.entries ?? []), ...(hidden?.entries ?? [])].filter((e) => e.kind === "file");
    return { files: files.length, bytes: files.reduce((n, e) => n + e.size, 0) };
  }
}

describe("HistoryStore change feed and store extras", () => {
  it("reports every change with sizes and version ids, the tenant when scoped, content only when asked", async () => {
    const events: HistoryEvent[] = [];
    const store = new HistoryStore(new TenantStore(new InMemoryStore()), {
      onChange: (event) => void events.push(event),
    });
    const tenant = store.scope!("acme");
    await run(tenant, { command: "create", path: "/memories/a", file_text: "12" });
    await run(tenant, { command: "str_replace", path: "/memories/a", old_str: "2", new_str: "234" });
    await run(tenant, { command: "rename", old_path: "/memories/a", new_path: "/memories/b" });
    await run(tenant, { command: "delete", path: "/memories/b" });
    const [v] = await tenant.versions("/memories/b");
    await tenant.restore("/memories/b", v!.id);
    await flush();
    expect(
      events.map(({ versionId, restoredFrom, time, ...rest }) => ({
        ...rest,
        v: !!versionId,
        r: !!restoredFrom,
        t: typeof time,
      })),
    ).toEqual([
      {
        command: "create",
        path: "/memories/a",
        tenant: "acme",
        sizeBefore: null,
        sizeAfter: 2,
        v: false,
        bytes: 2,
        t: "number",
        r: false,
      },
      {
        command: "edit",
        path: "/memories/a",
        tenant: "acme",
        sizeBefore: 2,
        sizeAfter: 4,
        v: true,
        bytes: 4,
        t: "number",
        r: false,
      },
      {
        command: "rename",
        path: "/memories/a",
        newPath: "/memories/b",
        tenant: "acme",
        sizeBefore: 4,
        sizeAfter: 4,
        v: true,
        bytes: 0,
        t: "number",
        r: false,
      },
      {
        command: "delete",
        path: "/memories/b",
        tenant: "acme",
        sizeBefore: 4,
        sizeAfter: null,
        v: true,
        bytes: 0,
        t: "number",
        r: false,
      },
      {
        command: "restore",
        path: "/memories/b",
        tenant: "acme",
        sizeBefore: null,
        sizeAfter: 4,
        v: false,
        bytes: 4,
        t: "number",
        r: true,
      },
    ]);
    expect(events.every((e) => !("content" in e))).toBe(true);
    expect(await run(store, { command: "view", path: "/memories/b" })).toMatchObject({ isError: true });

    const withContent: HistoryEvent[] = [];
    const loud = new HistoryStore(new InMemoryStore(), {
      includeContent: true,
      onChange: (event) => void withContent.push(event),
    });
    await run(loud, { command: "create", path: "/memories/a", file_text: "hello" });
    await flush();
    expect(text(withContent[0]?.content)).toBe("hello");
  });

  it("never lets a failing hook change a result", async () => {
    const store = new HistoryStore(new InMemoryStore(), {
      onChange: () => {
        throw new Error("feed down");
      },
    });
    expect(await run(store, { command: "create", path: "/memories/a", file_text: "x" })).toEqual({
      content: "File created successfully at: /memories/a",
      isError: false,
    });
  });

  it("leaves kept versions out of usage, and forwards only what the wrapped store has", async () => {
    const inner = new TenantStore(new InMemoryStore());
    const store = new HistoryStore(inner);
    await run(store, { command: "create", path: "/memories/a", file_text: "12345" });
    await run(store, { command: "str_replace", path: "/memories/a", old_str: "5", new_str: "56" });
    // The file, its version, the version's path file, the running total ("5") and the change log's 2 records.
    const log = await inner.list(`/memories/${HISTORY_NAME}/log`, 1);
    expect(log?.entries).toHaveLength(2);
    const historyBytes = 5 + "/memories/a".length + 1 + log!.size;
    expect(await inner.usage()).toEqual({ files: 6, bytes: 6 + historyBytes });
    expect(await store.usage!()).toEqual({ files: 1, bytes: 6, historyBytes });
    const plain = new InMemoryStore();
    const bare = new HistoryStore({
      capabilities: plain.capabilities,
      read: (path) => plain.read(path),
      stat: (path) => plain.stat(path),
      list: (dir, depth) => plain.list(dir, depth),
      write: (path, data, condition) => plain.write(path, data, condition),
      delete: (path) => plain.delete(path),
      rename: (from, to) => plain.rename(from, to),
    });
    expect(bare.usage).toBeUndefined();
    expect(bare.scope).toBeUndefined();
    expect(bare.files).toBeUndefined();
  });

  it("leaves kept versions out of files(), hidden files of the model's kept", async () => {
    const inner = new InMemoryStore();
    const store = new HistoryStore(inner);
    await run(store, { command: "create", path: "/memories/a", file_text: "1" });
    await run(store, { command: "create", path: "/memories/.b", file_text: "2" });
    await run(store, { command: "str_replace", path: "/memories/a", old_str: "1", new_str: "3" });
    expect((await inner.files()).some((f) => f.path.startsWith(`/memories/${HISTORY_NAME}/`))).toBe(true);
    const files = (await store.files!()).sort((x, y) => (x.path < y.path ? -1 : 1));
    expect(files).toEqual([
      { path: "/memories/.b", size: 1 },
      { path: "/memories/a", size: 1 },
    ]);
  });
});

describe("create with createOverwrites", () => {
  it("keeps the replaced content as a version", async () => {
    const store = new HistoryStore(new InMemoryStore());
    const path = "/memories/plan.md";
    await run(store, { command: "create", path, file_text: "v1\n" });
    const result = await executeCommand(
      store,
      { command: "create", path, file_text: "v2\n" },
      { createOverwrites: true },
    );
    expect(result).toEqual({ content: `File created successfully at: ${path}`, isError: false });
    expect(await content(store, path)).toBe("v2\n");
    const versions = await store.versions(path);
    expect(versions).toHaveLength(1);
    expect(text(await store.readVersion(path, versions[0]?.id ?? ""))).toBe("v1\n");
  });

  it("loses no writer's content under 16 concurrent overwrites: the file and the versions hold them all", async () => {
    const store = new HistoryStore(new InMemoryStore());
    const path = "/memories/plan.md";
    await run(store, { command: "create", path, file_text: "start\n" });
    const texts = Array.from({ length: 16 }, (_, i) => `writer ${i}\n`);
    const results = await Promise.all(
      texts.map((file_text) =>
        executeCommand(store, { command: "create", path, file_text }, { createOverwrites: true }),
      ),
    );
    expect(results.every((r) => r.content === `File created successfully at: ${path}` && !r.isError)).toBe(
      true,
    );
    const kept = await Promise.all(
      (await store.versions(path)).map(async (v) => text(await store.readVersion(path, v.id))),
    );
    const seen = new Set([...kept, await content(store, path)]);
    for (const t of ["start\n", ...texts]) expect(seen).toContain(t);
  });
});

describe("who changed what", () => {
  it("records the command and actor of each change made through executeCommand and memoryTool", async () => {
    const events: HistoryEvent[] = [];
    const store = new HistoryStore(new InMemoryStore(), { onChange: (event) => void events.push(event) });
    const path = "/memories/notes.md";
    const agent = { actor: "planner agent ✓" };
    await executeCommand(store, { command: "create", path, file_text: "one\n" }, agent);
    await executeCommand(store, { command: "str_replace", path, old_str: "one", new_str: "two" }, agent);
    const tool = memoryTool(store, { actor: "user:alice@example.com" });
    await tool.run({ command: "insert", path, insert_line: 1, insert_text: "three" });
    await executeCommand(store, { command: "str_replace", path, old_str: "two", new_str: "2" });
    await executeCommand(store, { command: "rename", old_path: path, new_path: "/memories/b.md" }, agent);
    await flush();

    expect((await store.versions(path)).map((v) => [v.command, v.actor])).toEqual([
      ["rename", "planner agent ✓"],
      ["str_replace", undefined],
      ["insert", "user:alice@example.com"],
      ["str_replace", "planner agent ✓"],
    ]);
    const [newest] = await store.versions(path);
    expect(new TextDecoder().decode((await store.readVersion(path, newest?.id ?? ""))!)).toBe("2\nthree\n");
    expect(events.map((e) => [e.command, e.actor])).toEqual([
      ["create", "planner agent ✓"],
      ["edit", "planner agent ✓"],
      ["edit", "user:alice@example.com"],
      ["edit", undefined],
      ["rename", "planner agent ✓"],
    ]);
  });

  it("keeps the longest actor in a version id short enough for a file name, on a real file system", async () => {
    const root = await mkdtemp(join(tmpdir(), "mem-history-actor-"));
    try {
      const store = new HistoryStore(new FsStore({ root }));
      const actor = "é".repeat(64); // 128 UTF-8 bytes, the most an actor may have
      await executeCommand(store, { command: "create", path: "/memories/a", file_text: "1" }, { actor });
      await executeCommand(
        store,
        { command: "str_replace", path: "/memories/a", old_str: "1", new_str: "2" },
        { actor },
      );
      const [version] = await store.versions("/memories/a");
      expect(version).toMatchObject({ command: "str_replace", actor, size: 1 });
      expect(await store.restore("/memories/a", version!.id)).toHaveProperty("replacedVersionId");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
