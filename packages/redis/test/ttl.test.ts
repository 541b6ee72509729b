import { executeCommand } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytes, indexProblems, TestRedis, textOf } from "./helpers.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await TestRedis.start();
});
afterAll(async () => {
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ttlSeconds", () => {
  it("makes files that were left alone longer than the ttl disappear, index and sizes included", async () => {
    const store = redis.store({ ttlSeconds: 1 });
    const other = redis.store();
    await store.write("/memories/old/deep/x.txt", bytes("xyz"), { ifAbsent: true });
    await store.write("/memories/old/y.txt", bytes("yy"), { ifAbsent: true });
    await store.write("/memories/top.md", bytes("t"), { ifAbsent: true });
    await other.write("/memories/top.md", bytes("no ttl here"), { ifAbsent: true });
    expect((await store.list("/memories", 2))?.size).toBe(6);

    await sleep(1_300);

    expect(await store.read("/memories/top.md")).toBeNull();
    expect(await store.stat("/memories/old")).toBeNull();
    expect(await store.list("/memories/old", 2)).toBeNull();
    expect(await store.list("/memories", 2)).toEqual({ size: 0, entries: [] });
    expect(await indexProblems(store)).toEqual([]);
    // What is left: the version counter, and the mark that the (now empty) access times are complete.
    expect((await store.client.keys(`${store.keyBase.replace(/[{}]/g, "\\$&")}*`)).sort()).toEqual([
      `${store.keyBase}T`,
      `${store.keyBase}seq`,
    ]);
    // A store without expiry on another prefix is untouched.
    expect(textOf((await other.read("/memories/top.md"))!.data)).toBe("no ttl here");
    // The path is free again.
    await store.write("/memories/old", bytes("now a file"), { ifAbsent: true });
    expect(await store.stat("/memories/old")).toEqual({ kind: "file", size: 10 });
  });

  it("expires through the tool as well: the file is gone for view and the directory listing", async () => {
    const store = redis.store({ ttlSeconds: 1 });
    await executeCommand(store, { command: "create", path: "/memories/notes/a.md", file_text: "hello\n" });
    await sleep(1_300);
    expect(await executeCommand(store, { command: "view", path: "/memories/notes/a.md" })).toEqual({
      content: "The path /memories/notes/a.md does not exist. Please provide a valid path.",
      isError: true,
    });
    expect((await executeCommand(store, { command: "view", path: "/memories" })).content).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
    );
  });

  it("counts reads, writes and renames as access, not stat or listings", async () => {
    const store = redis.store({ ttlSeconds: 3_600 });
    const access = `${store.keyBase}t`;
    await store.write("/memories/a/f", bytes("1"), { ifAbsent: true });
    const written = Number(await store.client.zscore(access, "/memories/a/f"));
    await sleep(20);
    await store.read("/memories/a/f");
    const read = Number(await store.client.zscore(access, "/memories/a/f"));
    expect(read).toBeGreaterThan(written);
    await sleep(20);
    await store.stat("/memories/a/f");
    await store.list("/memories", 2);
    expect(Number(await store.client.zscore(access, "/memories/a/f"))).toBe(read);
    await sleep(20);
    await store.rename("/memories/a", "/memories/b");
    expect(await store.client.zscore(access, "/memories/a/f")).toBeNull();
    expect(Number(await store.client.zscore(access, "/memories/b/f"))).toBeGreaterThan(read);
    expect(await indexProblems(store)).toEqual([]);
  });

  it("does not touch files on read when no ttl is set", async () => {
    const store = redis.store();
    const access = `${store.keyBase}t`;
    await store.write("/memories/f", bytes("1"), { ifAbsent: true });
    const written = Number(await store.client.zscore(access, "/memories/f"));
    await sleep(20);
    await store.read("/memories/f");
    expect(Number(await store.client.zscore(access, "/memories/f"))).toBe(written);
  });
});
