import { executeCommand } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";

// ioredis's `enableAutoPipelining` batches the commands issued in one turn of the event loop. Its
// `callBuffer` breaks under it (arguments in an array throw a TypeError outside any promise, which
// ended the process; spread ones send another command), so the store must not send its calls that way.
let server: RedisServer;
let client: Redis;
const thrown: unknown[] = [];
const onUncaught = (error: unknown) => thrown.push(error);

beforeAll(async () => {
  server = await startRedis();
  client = new Redis(server.port, server.host, { enableAutoPipelining: true });
  process.on("uncaughtException", onUncaught);
});
afterAll(async () => {
  process.off("uncaughtException", onUncaught);
  client?.disconnect();
  await server?.stop();
});

describe("a client with enableAutoPipelining", () => {
  it("runs every command, 40 agents at once on one file, with nothing lost and nothing thrown", async () => {
    const store = new RedisStore({ client, prefix: "pipelined" }).scope("t");
    const created = await executeCommand(store, {
      command: "create",
      path: "/memories/log.md",
      file_text: "# log\n",
    });
    expect(created).toEqual({ content: "File created successfully at: /memories/log.md", isError: false });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        executeCommand(store, {
          command: "insert",
          path: "/memories/log.md",
          insert_line: 1,
          insert_text: `line ${i}`,
        }),
      ),
    );
    expect(results.filter((result) => result.isError)).toEqual([]);
    const file = await store.read("/memories/log.md");
    const lines = new TextDecoder().decode(file!.data).split("\n");
    expect(lines.filter((line) => line.startsWith("line ")).sort()).toEqual(
      Array.from({ length: 40 }, (_, i) => `line ${i}`).sort(),
    );
    const listing = await executeCommand(store, { command: "view", path: "/memories" });
    expect(listing.isError).toBe(false);
    expect(listing.content).toContain("/memories/log.md");
    const renamed = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/log.md",
      new_path: "/memories/old.md",
    });
    expect(renamed.isError).toBe(false);
    expect(await store.usage()).toEqual({ files: 1, bytes: file!.data.byteLength });
    expect(thrown).toEqual([]);
  });
});
