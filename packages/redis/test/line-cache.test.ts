import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { TestRedis } from "./helpers.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await TestRedis.start();
});
afterAll(async () => {
  await redis?.stop();
});

/** A text of `n` numbered lines tagged `tag`, about 60 bytes each. */
const textOf = (tag: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `${tag} line ${i + 1} ${"x".repeat(40)}`)
    .join("\n")
    .concat("\n");

const create = (store: MemoryStore, path: string, text: string) =>
  executeCommand(store, { command: "create", path, file_text: text });
const view = (store: MemoryStore, path: string, range: [number, number]) =>
  executeCommand(store, { command: "view", path, view_range: range });

/** What the server has sent to all its clients so far, in bytes (INFO stats). */
const sentBytes = async (client: Redis): Promise<number> => {
  const info = await client.info("stats");
  return Number(/total_net_output_bytes:(\d+)/.exec(info)?.[1]);
};

describe("view_range windows from bytes kept between views", () => {
  it("asks the server only whether an unchanged file changed, and shows what a whole read would", async () => {
    const store = redis.store();
    const reference = new InMemoryStore();
    const text = textOf("a", 12_000); // about 700 KB
    for (const s of [store, reference]) await create(s, "/memories/big.md", text);
    const probe = redis.client();
    expect(await store.stat("/memories/big.md")).toEqual({ kind: "file", size: text.length });
    const before = await sentBytes(probe);
    expect(await view(store, "/memories/big.md", [100, 199])).toEqual(
      await view(reference, "/memories/big.md", [100, 199]),
    );
    const afterFirst = await sentBytes(probe);
    expect(afterFirst - before).toBeGreaterThan(text.length);
    for (const range of [
      [1, 100],
      [11_950, -1],
      [12_001, 12_010],
      [7, 7],
    ] as [number, number][]) {
      expect(await view(store, "/memories/big.md", range)).toEqual(
        await view(reference, "/memories/big.md", range),
      );
    }
    const afterAll = await sentBytes(probe);
    // Four windows and the INFO replies themselves: a few kilobytes, not four more megabytes.
    expect(afterAll - afterFirst).toBeLessThan(40_000);
  });

  it("never shows a window of bytes another client has changed since", async () => {
    const store = redis.store();
    const other = redis.peer(store);
    await create(store, "/memories/big.md", textOf("old", 5_000));
    expect((await view(store, "/memories/big.md", [3, 3])).content).toContain("old line 3");
    await executeCommand(other, {
      command: "str_replace",
      path: "/memories/big.md",
      old_str: "old line 3 ",
      new_str: "new line 3 ",
    });
    expect((await view(store, "/memories/big.md", [3, 3])).content).toContain("new line 3");
    await executeCommand(other, { command: "delete", path: "/memories/big.md" });
    expect(await view(store, "/memories/big.md", [3, 3])).toEqual({
      content: "The path /memories/big.md does not exist. Please provide a valid path.",
      isError: true,
    });
  });

  it("never mistakes a file created again after a purge, at the same version, for the one it kept", async () => {
    const root = redis.store();
    const tenant = root.scope("alice");
    await create(tenant, "/memories/big.md", textOf("before", 3_000));
    expect((await view(tenant, "/memories/big.md", [2, 2])).content).toContain("before line 2");
    await tenant.purge();
    // The version counter went with the purge: this create gets the version the first one had.
    await create(tenant, "/memories/big.md", textOf("after", 3_000));
    expect((await tenant.read("/memories/big.md"))?.version).toBe("1");
    expect((await view(tenant, "/memories/big.md", [2, 2])).content).toContain("after line 2");
  });

  it("starts no generation while the erasure fence is up, and keeps nothing read then", async () => {
    const store = redis.store();
    const client = redis.client();
    await create(store, "/memories/big.md", textOf("f", 3_000));
    await client.set(`${store.keyBase}x`, "1");
    expect((await view(store, "/memories/big.md", [5, 5])).content).toContain("f line 5");
    expect(await client.exists(`${store.keyBase}g`)).toBe(0);
    await client.del(`${store.keyBase}x`);
    expect((await view(store, "/memories/big.md", [5, 5])).content).toContain("f line 5");
    expect(await client.exists(`${store.keyBase}g`)).toBe(1);
  });

  it("lets an expired file be missing although its bytes were kept", async () => {
    let now = 1_000_000;
    const store = redis.store({ expireAfterSeconds: 60, clock: () => now });
    await create(store, "/memories/big.md", textOf("e", 3_000));
    expect((await view(store, "/memories/big.md", [1, 1])).content).toContain("e line 1");
    now += 61_000;
    expect((await view(store, "/memories/big.md", [1, 1])).isError).toBe(true);
  });

  it("reads the file whole when caching is off, and refuses a negative size", async () => {
    const store = redis.store({ lineCacheBytes: 0 });
    await create(store, "/memories/big.md", textOf("z", 3_000));
    expect(await store.readLines("/memories/big.md", 1, 2)).toBeUndefined();
    expect((await view(store, "/memories/big.md", [2, 2])).content).toContain("z line 2");
    expect(() => new RedisStore({ client: redis.client(), lineCacheBytes: -1 })).toThrow(
      /RedisStore: option "lineCacheBytes"/,
    );
  });
});
