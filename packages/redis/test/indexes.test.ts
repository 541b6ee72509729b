import { once } from "node:events";
import { FakeClock } from "@mem/conformance";
import { compareNames, executeCommand, InMemoryStore, listingFromFiles } from "@mem/core";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { bytes, indexProblems, TestRedis } from "./helpers.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await TestRedis.start();
});
afterAll(async () => {
  await redis?.stop();
});

describe("the ordered index", () => {
  // UTF-16 order puts U+E000–U+FFFF after the characters above U+FFFF; UTF-8 byte order does the reverse.
  const names = [
    "b",
    "a",
    "Z",
    "é",
    "\uE000",
    "\uFFFD",
    "😀",
    "𝄞",
    "\uD7FF",
    "~",
    ".h",
    "node_modules",
    "a b",
  ];

  for (const listLimit of [1, 3, 5, 8, 1000]) {
    it(`shows view's order and counts the rest, as a complete listing does (listLimit ${listLimit})`, async () => {
      const store = redis.store();
      const model = new InMemoryStore();
      for (const top of names) {
        for (const target of [store, model]) {
          await target.write(`/memories/${top}`, bytes(top), { ifAbsent: true });
          for (const below of names.slice(0, 4)) {
            await target.write(`/memories/d/${top}/${below}`, bytes(below), { ifAbsent: true });
          }
        }
      }
      for (const path of ["/memories", "/memories/d", "/memories/d/😀"]) {
        const input = { command: "view", path };
        expect(await executeCommand(store, input, { listLimit })).toEqual(
          await executeCommand(model, input, { listLimit }),
        );
      }
      expect(await indexProblems(store)).toEqual([]);
    });
  }
});

describe("file counts", () => {
  it("are given on request, for the listing and each directory, as the listing rule counts them", async () => {
    const store = redis.store();
    const model = new InMemoryStore();
    const paths = ["a/x", "a/.h/y", "a/b/z", "a/b/c/w", "node_modules/q", "top", "d/e/f/g"];
    for (const path of paths) {
      for (const target of [store, model])
        await target.write(`/memories/${path}`, bytes(path), { ifAbsent: true });
    }
    await store.rename("/memories/a/b", "/memories/d/b");
    await model.rename("/memories/a/b", "/memories/d/b");
    await store.delete("/memories/d/e");
    await model.delete("/memories/d/e");
    const files = await model.files();
    for (const dir of ["/memories", "/memories/a", "/memories/d"]) {
      const expected = listingFromFiles(dir, files, 2, { countFiles: true });
      const listing = await store.list(dir, 2, { countFiles: true });
      const byPath = (l: typeof listing) =>
        [...(l?.entries ?? [])].sort((x, y) => compareNames(x.path, y.path));
      expect(listing?.files).toBe(expected.files);
      expect(byPath(listing)).toEqual(byPath(expected));
    }
    expect((await store.list("/memories", 2))?.files).toBeUndefined();
    expect(await indexProblems(store)).toEqual([]);
  });
});

describe("access times", () => {
  /** The commands a script ran on the access-time set `t`, with MONITOR. */
  const accessCommands = async (store: RedisStore, action: () => Promise<unknown>): Promise<string[]> => {
    const monitorClient = new Redis(redis.server.port, redis.server.host);
    const monitor = await monitorClient.monitor();
    const seen: string[] = [];
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (args[1] === `${store.keyBase}t`) seen.push(String(args[0]).toLowerCase());
      if (String(args[0]).toLowerCase() === "echo" && args[1] === "done") seen.push("done");
    });
    await action();
    await store.client.echo("done");
    while (!seen.includes("done")) await new Promise((resolve) => setTimeout(resolve, 5));
    monitorClient.disconnect();
    return seen.filter((command) => command !== "done");
  };

  it("are not kept without expiry: a 50-file directory rename touches none", async () => {
    const store = redis.store();
    const commands = await accessCommands(store, async () => {
      for (let i = 0; i < 50; i++) await store.write(`/memories/dir/f${i}`, bytes("x"), { ifAbsent: true });
      await executeCommand(store, {
        command: "rename",
        old_path: "/memories/dir",
        new_path: "/memories/moved",
      });
      await executeCommand(store, { command: "view", path: "/memories/moved/f1" });
      await executeCommand(store, { command: "delete", path: "/memories/moved" });
    });
    expect(commands).toEqual([]);
    expect(await store.client.exists(`${store.keyBase}t`)).toBe(0);
  });

  it("start for every file when expiry is turned on, and start again after a time without it", async () => {
    const clock = new FakeClock();
    const plain = redis.store();
    await plain.write("/memories/old.md", bytes("old"), { ifAbsent: true });
    const expiring = redis.peer(plain, { expireAfterSeconds: 100, clock: clock.now });

    clock.advance(50);
    // The first call with expiry starts the clocks now: nothing vanishes at once.
    expect(await expiring.stat("/memories/old.md")).toEqual({ kind: "file", size: 3 });
    clock.advance(60);
    expect(await expiring.stat("/memories/old.md")).toEqual({ kind: "file", size: 3 });
    // A read without expiry is an access the index did not see: the clocks start again at the next call.
    clock.advance(30);
    expect(await plain.read("/memories/old.md")).not.toBeNull();
    expect(await expiring.stat("/memories/old.md")).toEqual({ kind: "file", size: 3 });
    clock.advance(99);
    expect(await expiring.stat("/memories/old.md")).toEqual({ kind: "file", size: 3 });
    clock.advance(2);
    expect(await expiring.read("/memories/old.md")).toBeNull();
    expect(await indexProblems(expiring)).toEqual([]);
  });
});

describe("connection listeners", () => {
  it("stay one set per client with 1,000 operations waiting for the connection", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const store = new RedisStore({ url: redis.server.url, prefix: redis.freshPrefix() });
      expect(store.client.status).not.toBe("ready");
      const results = await Promise.all(
        Array.from({ length: 1_000 }, (_, i) =>
          store.write(`/memories/f${i}`, bytes("x"), { ifAbsent: true }),
        ),
      );
      expect(results).toHaveLength(1_000);
      expect(store.client.listenerCount("ready")).toBeLessThanOrEqual(1);
      const again = await Promise.all(Array.from({ length: 1_000 }, (_, i) => store.read(`/memories/f${i}`)));
      expect(again.every((file) => file !== null)).toBe(true);
      await store.close();
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("wait for a reconnection together and fail together when it does not come", async () => {
    const store = new RedisStore({ url: redis.server.url, prefix: redis.freshPrefix() });
    if (store.client.status !== "ready") await once(store.client, "ready");
    expect(store.client.listenerCount("close")).toBeLessThanOrEqual(1);
    await store.close();
    const failures = await Promise.allSettled(Array.from({ length: 100 }, () => store.read("/memories/x")));
    expect(failures.every((f) => f.status === "rejected")).toBe(true);
  });
});
