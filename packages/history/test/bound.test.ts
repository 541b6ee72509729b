import {
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  type Listing,
  type ListOptions,
  type MemoryStore,
} from "@mem/core";
import { describe, expect, it } from "vitest";
import { HISTORY_NAME, HistoryStore } from "../src/index.js";

const BASE = `/memories/${HISTORY_NAME}`;
const KB100 = `${"x".repeat(99_999)}\n`;

/** Counts the walks of the whole history: listings of its base two levels deep. */
class CountingWalks extends ForwardingStore {
  walks = 0;
  constructor(
    inner: MemoryStore,
    private readonly base = BASE,
  ) {
    super(inner);
  }
  override async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    if (dir === this.base && depth >= 2) this.walks++;
    return this.inner.list(dir, depth, options);
  }
}

/** The history's folders (one per path with versions) and the bytes of its version files (the change log left out). */
const onDisk = async (inner: MemoryStore) => {
  const listing = await inner.list(BASE, 2);
  const entries = (listing?.entries ?? []).filter((e) => !e.path.startsWith(`${BASE}/log`));
  const folders = entries.filter((e) => e.kind === "directory").length;
  const versions = entries.filter(
    (e) => e.kind === "file" && /\/[0-9a-z]{9}-[0-9a-z]{4}-[0-9a-f]{8}(\.[^/]*)?$/.test(e.path),
  );
  return { folders, versions: versions.length, bytes: versions.reduce((n, e) => n + e.size, 0) };
};

const renameChain = async (store: MemoryStore, count: number) => {
  const limits = { maxFiles: 2 };
  const created = await executeCommand(
    store,
    { command: "create", path: "/memories/f0.md", file_text: KB100 },
    limits,
  );
  expect(created.isError).toBe(false);
  for (let i = 1; i <= count; i++) {
    const renamed = await executeCommand(
      store,
      { command: "rename", old_path: `/memories/f${i - 1}.md`, new_path: `/memories/f${i}.md` },
      limits,
    );
    expect(renamed.isError).toBe(false);
  }
};

describe("HistoryStore's bound on the bytes of history", () => {
  it("keeps 300 renames of a 100 KB file within maxHistoryBytes, in few folders, and reports it in usage", async () => {
    const inner = new InMemoryStore();
    const store = new HistoryStore(inner, { maxHistoryBytes: 1_000_000 });
    await renameChain(store, 300);

    const disk = await onDisk(inner);
    expect(disk.bytes).toBeLessThanOrEqual(1_000_000);
    expect(disk.versions).toBeLessThanOrEqual(10);
    expect(disk.folders).toBe(disk.versions); // a path whose versions all went loses its folder
    const usage = await store.usage!();
    expect(usage.files).toBe(1);
    expect(usage.bytes).toBe(100_000);
    expect(usage.historyBytes).toBeGreaterThanOrEqual(disk.bytes);
    // Path files and the running total, and the change log's 301 records (bounded by age and count, not bytes).
    const log = await inner.list(`${BASE}/log`, 1);
    expect(log?.entries).toHaveLength(301);
    expect(usage.historyBytes).toBeLessThan(disk.bytes + 2_000 + log!.size);
    expect((await inner.usage()).bytes).toBe(usage.bytes + usage.historyBytes!);

    // The oldest went first: the newest versions are there, the first ones are not.
    expect(await store.versions("/memories/f299.md")).toHaveLength(1);
    expect(await store.versions("/memories/f0.md")).toEqual([]);
    expect((await store.paths()).length).toBe(disk.folders);
  });

  it("keeps what fits: 300 renames stay under the default bound and are all reported", async () => {
    const inner = new InMemoryStore();
    const store = new HistoryStore(inner);
    await renameChain(store, 300);
    const disk = await onDisk(inner);
    expect(disk.versions).toBe(300);
    expect((await store.usage!()).historyBytes).toBeGreaterThan(300 * 100_000);
  });

  it("bounds each tenant on its own", async () => {
    const parent = new InMemoryStore();
    const store = new HistoryStore(parent, { maxHistoryBytes: 1_000_000 });
    const alice = store.scope!("alice");
    const bob = store.scope!("bob");
    await renameChain(alice, 30);
    await renameChain(bob, 5);
    expect((await onDisk(parent.scope("alice"))).bytes).toBeLessThanOrEqual(1_000_000);
    expect((await onDisk(parent.scope("bob"))).versions).toBe(5); // untouched by alice's history
  });

  it("walks the history only when the running total crosses the bound, not on every write", async () => {
    const inner = new CountingWalks(new InMemoryStore());
    const store = new HistoryStore(inner, { maxHistoryBytes: 1_000_000, maxVersions: 1000 });
    const path = "/memories/n.md";
    await executeCommand(store, { command: "create", path, file_text: "0\n" });
    for (let i = 1; i <= 200; i++) {
      await executeCommand(store, { command: "str_replace", path, old_str: `${i - 1}\n`, new_str: `${i}\n` });
    }
    // The first version finds no running total and writes it with one walk; small versions never reach the bound.
    expect(inner.walks).toBe(1);
    expect(await store.versions(path)).toHaveLength(200);

    // 100 KB versions: a walk each time a quarter of the bound has been added again.
    await renameChain(store, 40);
    expect(inner.walks).toBeLessThanOrEqual(1 + Math.ceil((40 * 100_000) / 250_000));
    expect((await onDisk(inner)).bytes).toBeLessThanOrEqual(1_000_000);
  });

  it("heals a missing or malformed running total with one walk that enforces the bound", async () => {
    const inner = new InMemoryStore();
    const unbounded = new HistoryStore(inner, { maxHistoryBytes: Number.POSITIVE_INFINITY });
    await renameChain(unbounded, 20); // 2 MB of history written without a bound, and without a total
    expect(await inner.stat(`${BASE}/bytes`)).toBeNull();
    expect((await onDisk(inner)).bytes).toBe(20 * 100_000);

    const bounded = new HistoryStore(inner, { maxHistoryBytes: 1_000_000 });
    await executeCommand(bounded, {
      command: "rename",
      old_path: "/memories/f20.md",
      new_path: "/memories/g.md",
    });
    const disk = await onDisk(inner);
    expect(disk.bytes).toBeLessThanOrEqual(1_000_000);
    const total = new TextDecoder().decode((await inner.read(`${BASE}/bytes`))!.data);
    expect(Number(total)).toBe(disk.bytes);

    await inner.delete(`${BASE}/bytes`);
    await inner.write(`${BASE}/bytes`, new TextEncoder().encode("not a number"), { ifAbsent: true });
    await executeCommand(bounded, {
      command: "rename",
      old_path: "/memories/g.md",
      new_path: "/memories/h.md",
    });
    const after = await onDisk(inner);
    const healed = new TextDecoder().decode((await inner.read(`${BASE}/bytes`))!.data);
    expect(Number(healed)).toBe(after.bytes);
  });

  it("reports a second store's history from its running total, without walking it", async () => {
    const side = new CountingWalks(new InMemoryStore(), "/memories");
    const store = new HistoryStore(new InMemoryStore(), { history: side, maxHistoryBytes: 1_000_000 });
    const path = "/memories/a.md";
    await executeCommand(store, { command: "create", path, file_text: "12345\n" });
    await executeCommand(store, { command: "str_replace", path, old_str: "5", new_str: "56" });
    const walks = side.walks;
    expect(await store.usage!()).toEqual({ files: 1, bytes: 7, historyBytes: 6 });
    expect(side.walks).toBe(walks);
  });

  it("refuses a bad maxHistoryBytes with a TypeError naming it", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, "1"]) {
      expect(() => new HistoryStore(new InMemoryStore(), { maxHistoryBytes: bad as number })).toThrow(
        /maxHistoryBytes/,
      );
    }
  });
});
