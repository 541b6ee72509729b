import { executeCommand, type ToolResult } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore, recommendedRedisOptions } from "../src/index.js";

// SPEC §5: a failed change is either certainly not applied (it never left the client) or reported
// with "The change may still be applied". A stalled server (SIGSTOP) keeps connections open and
// accepts new ones without answering, which is where a command can wait long enough to time out.

let server: RedisServer;
const clients: Redis[] = [];
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const clientFor = (): Redis => {
  const client = new Redis(server.port, server.host, recommendedRedisOptions);
  client.on("error", () => {});
  clients.push(client);
  return client;
};

/** Waits until the client is ready again and the store answers. */
const untilWorking = async (store: RedisStore): Promise<void> => {
  for (;;) {
    const result = await executeCommand(store, { command: "view", path: "/memories" });
    if (!result.isError) return;
    await sleep(50);
  }
};

const create = (store: RedisStore, path: string): Promise<ToolResult> =>
  executeCommand(store, { command: "create", path, file_text: "x\n" });

describe("a command that times out before it reaches the server", () => {
  it("is withdrawn: it fails with a plain error and is never applied once the server answers", async () => {
    server.pause();
    let client: Redis;
    let store: RedisStore;
    try {
      // A connection to the stalled server opens, but its ready check gets no answer.
      client = clientFor();
      store = new RedisStore({ client, prefix: "withdrawn", operationTimeoutMs: 300 });
      for (let i = 0; i < 100 && client.status !== "connect"; i++) await sleep(20);
      expect(client.status).toBe("connect");
      expect(await create(store, "/memories/ghost")).toEqual({
        content: "Error: create failed for /memories/ghost: timed out",
        isError: true,
      });
      expect(
        await executeCommand(store, {
          command: "rename",
          old_path: "/memories/ghost",
          new_path: "/memories/g2",
        }),
      ).toEqual({ content: "Error: rename failed for /memories/ghost: timed out", isError: true });
    } finally {
      server.resume();
    }
    await untilWorking(store);
    // The client became ready after the deadline: nothing it had been given may run now.
    await sleep(200);
    expect(await store.stat("/memories/ghost")).toBeNull();
    expect(await store.stat("/memories/g2")).toBeNull();
  });
});

describe("a change whose reply is lost", () => {
  it("says the change may still be applied, and it was", async () => {
    const client = clientFor();
    const store = new RedisStore({ client, prefix: "unknown", operationTimeoutMs: 300 });
    await untilWorking(store);
    expect((await create(store, "/memories/kept")).isError).toBe(false);
    server.pause();
    let results: ToolResult[];
    try {
      results = [
        await create(store, "/memories/late"),
        await executeCommand(store, {
          command: "str_replace",
          path: "/memories/kept",
          old_str: "x",
          new_str: "y",
        }),
        await executeCommand(store, { command: "view", path: "/memories/kept" }),
      ];
    } finally {
      server.resume();
    }
    expect(results[0]).toEqual({
      content:
        "Error: create failed for /memories/late: timed out. The change may still be applied; view /memories/late to check.",
      isError: true,
    });
    // The edit's read timed out: nothing was sent for writing, so the outcome is certain.
    expect(results[1]).toEqual({
      content: "Error: str_replace failed for /memories/kept: timed out",
      isError: true,
    });
    // A read changes nothing: a plain error.
    expect(results[2]).toEqual({
      content: "Error: view failed for /memories/kept: timed out",
      isError: true,
    });
    await untilWorking(store);
    // The server ran what it had received once it resumed: "may still be applied" was the truth.
    expect(await store.stat("/memories/late")).toEqual({ kind: "file", size: 2 });
  });

  it("says so for a delete and a rename cut off by a lost connection", async () => {
    const client = clientFor();
    const store = new RedisStore({ client, prefix: "cut", operationTimeoutMs: 5_000 });
    await untilWorking(store);
    expect((await create(store, "/memories/a")).isError).toBe(false);
    expect((await create(store, "/memories/b")).isError).toBe(false);
    server.pause();
    const pending = [
      executeCommand(store, { command: "delete", path: "/memories/a" }),
      executeCommand(store, { command: "rename", old_path: "/memories/b", new_path: "/memories/c" }),
    ];
    await sleep(50);
    // The server dies while both wait for their replies.
    await server.kill();
    const results = await Promise.all(pending);
    await server.start();
    expect(results.map((r) => r.content)).toEqual([
      "Error: delete failed for /memories/a: connection lost. The change may still be applied; view /memories/a to check.",
      "Error: rename failed for /memories/b: connection lost. The change may still be applied; view /memories/b to check.",
    ]);
    // A read cut off the same way changes nothing: a plain error.
    await untilWorking(store);
    server.pause();
    const view = executeCommand(store, { command: "view", path: "/memories/a" });
    await sleep(50);
    await server.kill();
    expect((await view).content).toBe("Error: view failed for /memories/a: connection lost");
    await server.start();
  });
});
