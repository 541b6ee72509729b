import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { LATER_WINDOWS, numberedText, viewBoth } from "@mem/testkit";
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
    const text = numberedText("a", 12_000); // about 700 KB
    for (const s of [store, reference]) await create(s, "/memories/big.md", text);
    const probe = redis.client();
    expect(await store.stat("/memories/big.md")).toEqual({ kind: "file", size: text.length });
    const before = await sentBytes(probe);
    expect(await view(store, "/memories/big.md", [100, 199])).toEqual(
      await view(reference, "/memories/big.md", [100, 199]),
    );
    const afterFirst = await sentBytes(probe);
    expect(afterFirst - before).toBeGreaterThan(text.length);
    const { got, expected } = await viewBoth(
      LATER_WINDOWS,
      (range) => view(store, "/memories/big.md", range),
      (range) => view(reference, "/memories/big.md", range),
    );
    expect(got).toEqual(expected);
    const afterAll = await sentBytes(probe);
    // Four windows and the INFO replies themselves: a few kilobytes, not four more megabytes.
    expect(afterAll - afterFirst).toBeLessThan(40_000);
  });

  it("starts no generation while the erasure fence is up, and keeps nothing read then", async () => {
    const store = redis.store();
    const client = redis.client();
    await create(store, "/memories/big.md", numberedText("f", 3_000));
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
    await create(store, "/memories/big.md", numberedText("e", 3_000));
    expect((await view(store, "/memories/big.md", [1, 1])).content).toContain("e line 1");
    now += 61_000;
    expect((await view(store, "/memories/big.md", [1, 1])).isError).toBe(true);
  });

  it("reads the file whole when caching is off, and refuses a negative size", async () => {
    const store = redis.store({ lineCacheBytes: 0 });
    await create(store, "/memories/big.md", numberedText("z", 3_000));
    expect(await store.readLines("/memories/big.md", 1, 2)).toBeUndefined();
    expect((await view(store, "/memories/big.md", [2, 2])).content).toContain("z line 2");
    expect(() => new RedisStore({ client: redis.client(), lineCacheBytes: -1 })).toThrow(
      /RedisStore: option "lineCacheBytes"/,
    );
  });
});
