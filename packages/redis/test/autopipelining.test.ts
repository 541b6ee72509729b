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
  it("runs every kind of call, commands issued together included, with nothing thrown", async () => {
    const store = new RedisStore({ client, prefix: "pipelined" }).scope("t");
    const created = await Promise.all(
      ["a", "b", "c"].map((name) =>
        executeCommand(store, { command: "create", path: `/memories/${name}.md`, file_text: `${name}\n` }),
      ),
    );
    expect(created.map((result) => result.content)).toEqual(
      ["a", "b", "c"].map((name) => `File created successfully at: /memories/${name}.md`),
    );
    const edited = await executeCommand(store, {
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "a",
      new_str: "A",
    });
    expect(edited.isError).toBe(false);
    const renamed = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/b.md",
      new_path: "/memories/d/b.md",
    });
    expect(renamed.isError).toBe(false);
    const listing = await executeCommand(store, { command: "view", path: "/memories" });
    expect(listing.content.split("\n").slice(1)).toEqual([
      "6B\t/memories",
      "2B\t/memories/a.md",
      "2B\t/memories/c.md",
      "2B\t/memories/d/",
      "2B\t/memories/d/b.md",
    ]);
    // The plain commands ioredis batches: the file walk and the usage counters.
    expect((await store.files()).map((file) => file.path).sort()).toEqual([
      "/memories/a.md",
      "/memories/c.md",
      "/memories/d/b.md",
    ]);
    expect(await store.usage()).toEqual({ files: 3, bytes: 6 });
    expect(thrown).toEqual([]);
  });
});
