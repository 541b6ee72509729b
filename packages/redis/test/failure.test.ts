import { executeCommand, type ToolResult } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { indexProblems } from "./helpers.js";

const servers: RedisServer[] = [];
const stores: RedisStore[] = [];
const clients: Redis[] = [];
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await Promise.all(stores.map((store) => store.close()));
  await Promise.all(servers.map((server) => server.stop()));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** An error that says nothing changed. */
const PLAIN =
  /^Error: (view|create|str_replace|insert|delete|rename) failed for \/memories\S*: [a-z][a-z -]+$/;
// A change cut off after it was sent may have been applied, and says so (SPEC §5).
const FAILED =
  /^Error: (view|create|str_replace|insert|delete|rename) failed for (\/memories\S*): [a-z][a-z -]+(\. The change may still be applied; view \2 to check\.)?$/;

/** Polls with a command until the store answers again; the test's timeout bounds the wait. */
const untilWorking = async (store: RedisStore, path: string): Promise<ToolResult> => {
  for (;;) {
    const result = await executeCommand(store, { command: "create", path, file_text: "back\n" });
    if (!result.isError) return result;
    expect(result.content).toMatch(FAILED);
    await sleep(100);
  }
};

describe("a server that dies and comes back", () => {
  it("gives error results while it is down and works again without a restart", async () => {
    const server = await startRedis();
    servers.push(server);
    const store = new RedisStore({ url: server.url, prefix: "failures" });
    stores.push(store);
    expect(
      (await executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "a\n" })).isError,
    ).toBe(false);

    // Kill the server while commands are in flight: each one ends as a success or an error result.
    const inFlight = Array.from({ length: 40 }, (_, i) =>
      executeCommand(store, { command: "create", path: `/memories/run/f${i}.txt`, file_text: `${i}\n` }),
    );
    const killed = server.kill();
    const results = await Promise.all(inFlight);
    await killed;
    for (const result of results) {
      if (result.isError) expect(result.content).toMatch(FAILED);
      else expect(result.content).toMatch(/^File created successfully at: \/memories\/run\/f\d+\.txt$/);
    }

    const commands = [
      { command: "view", path: "/memories" },
      { command: "view", path: "/memories/a.txt" },
      { command: "create", path: "/memories/b.txt", file_text: "b" },
      { command: "str_replace", path: "/memories/a.txt", old_str: "a", new_str: "b" },
      { command: "insert", path: "/memories/a.txt", insert_line: 0, insert_text: "x" },
      { command: "delete", path: "/memories/a.txt" },
      { command: "rename", old_path: "/memories/a.txt", new_path: "/memories/c.txt" },
    ];
    for (const input of commands) {
      const result = await executeCommand(store, input);
      expect(result.isError, input.command).toBe(true);
      expect(result.content).toMatch(PLAIN);
      expect(result.content).not.toContain(String(server.port));
    }
    // Once a reconnection attempt has been refused, the answer names it. On a busy machine the first
    // attempt may come after the commands above, so the answer is asked for until it does (a plain
    // failure meanwhile); the test's timeout bounds the wait.
    for (;;) {
      const { content } = await executeCommand(store, { command: "view", path: "/memories" });
      if (content === "Error: view failed for /memories: connection refused") break;
      expect(content).toMatch(PLAIN);
      await sleep(50);
    }

    await server.start();
    await untilWorking(store, "/memories/after.txt");
    expect(await executeCommand(store, { command: "view", path: "/memories/after.txt" })).toEqual({
      content: "Here's the content of /memories/after.txt with line numbers:\n     1\tback",
      isError: false,
    });
  });

  it("bounds operations even on a client without timeouts, and never runs a failed command later", async () => {
    const server = await startRedis();
    servers.push(server);
    // ioredis defaults: offline queue on, 20 retries per request, no command timeout.
    const client = new Redis(server.port, server.host);
    client.on("error", () => {});
    clients.push(client);
    const store = new RedisStore({ client, prefix: "defaults", operationTimeoutMs: 2_000 });
    expect(
      (await executeCommand(store, { command: "create", path: "/memories/a", file_text: "" })).isError,
    ).toBe(false);
    await server.kill();
    const ghost = await executeCommand(store, {
      command: "create",
      path: "/memories/ghost",
      file_text: "boo",
    });
    expect(ghost.isError).toBe(true);
    expect(ghost.content).toMatch(PLAIN);
    await server.start();
    await untilWorking(store, "/memories/after");
    expect(await store.stat("/memories/ghost")).toBeNull();
    expect((await executeCommand(store, { command: "view", path: "/memories" })).content).toContain(
      "/memories/after",
    );
  });

  it("leaves no command half-applied when killed mid-run (append-only file, fsync always)", async () => {
    const server = await startRedis({ args: ["--appendonly", "yes", "--appendfsync", "always"] });
    servers.push(server);
    const store = new RedisStore({ url: server.url, prefix: "aof" });
    stores.push(store);
    for (let i = 0; i < 20; i++) {
      await store.write(`/memories/d${i % 4}/s${i % 3}/f${i}.md`, new Uint8Array(i + 1), { ifAbsent: true });
    }
    // Directory renames, deletes and creates race with the kill.
    const work = Array.from({ length: 60 }, (_, i) => {
      const dir = `/memories/d${i % 4}`;
      switch (i % 3) {
        case 0:
          return executeCommand(store, { command: "rename", old_path: dir, new_path: `${dir}-${i}` });
        case 1:
          return executeCommand(store, { command: "delete", path: `/memories/d${(i + 1) % 4}/s1` });
        default:
          return executeCommand(store, {
            command: "create",
            path: `${dir}/new/n${i}`,
            file_text: "n".repeat(i),
          });
      }
    });
    await sleep(5);
    await server.kill();
    for (const result of await Promise.all(work)) {
      if (result.isError) expect(result.content).toMatch(/^Error: /);
    }
    await server.start();
    await untilWorking(store, "/memories/after.md");
    expect(await indexProblems(store)).toEqual([]);
    // The data written before the kill survived the restart, so the check above looked at real work.
    const listing = await store.list("/memories", 1);
    expect(listing?.entries.filter((entry) => /^\/memories\/d\d/.test(entry.path)).length).toBeGreaterThan(0);
  });
});
