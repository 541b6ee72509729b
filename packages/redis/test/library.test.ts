import { executeCommand } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { STORE_FUNCTION } from "../src/script.js";
import { addScriptsUser, countingClient, SCRIPTS_USER } from "./helpers.js";

// The two forms of the store's Lua code (see src/library.ts): a function library where the server and
// the user allow it, the script form otherwise. Commands are counted by a wrapper around the real
// client's sendCommand.
let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedis();
  admin = new Redis(server.port, server.host);
  // A user that may run scripts but neither load nor call functions.
  await addScriptsUser(admin);
});
afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
});

const counted = (options: { username?: string; password?: string } = {}) =>
  countingClient({ port: server.port, host: server.host, ...options });

const SESSION = [
  { command: "create", path: "/memories/notes/a.md", file_text: "one\ntwo\n" },
  { command: "str_replace", path: "/memories/notes/a.md", old_str: "one", new_str: "1" },
  { command: "insert", path: "/memories/notes/a.md", insert_line: 0, insert_text: "zero" },
  { command: "view", path: "/memories" },
  { command: "view", path: "/memories/notes/a.md", view_range: [1, 2] },
  { command: "rename", old_path: "/memories/notes/a.md", new_path: "/memories/notes/b.md" },
  { command: "view", path: "/memories/notes/b.md" },
  { command: "create", path: "/memories/notes/b.md", file_text: "again\n" },
  { command: "delete", path: "/memories/notes" },
  { command: "view", path: "/memories/notes" },
];

const run = async (store: RedisStore) => {
  const results: string[] = [];
  for (const input of SESSION) {
    const result = await executeCommand(store, input);
    results.push(`${result.isError ? "error" : "ok"}: ${result.content}`);
  }
  return results;
};

describe("the store's code on the server", () => {
  it("runs as a function where functions are allowed, and as a script where they are not, with the same answers", async () => {
    const functions = counted();
    const scripts = counted(SCRIPTS_USER);
    const viaFunction = new RedisStore({ client: functions.client, prefix: "as-function" });
    const viaScript = new RedisStore({ client: scripts.client, prefix: "as-script" });
    try {
      const expected = await run(viaFunction);
      expect(await run(viaScript)).toEqual(expected);
      expect(expected.filter((line) => line.startsWith("error"))).toHaveLength(2);
      // One FCALL per store call, after the library's load on the first.
      expect(functions.sent.slice(0, 3)).toEqual(["fcall", "function", "fcall"]);
      expect(new Set(functions.sent.slice(3))).toEqual(new Set(["fcall"]));
      // Refused once (NOPERM), then the script form only: EVAL once, as the server lacked the script.
      expect(scripts.sent.slice(0, 3)).toEqual(["fcall", "evalsha", "eval"]);
      expect(new Set(scripts.sent.slice(3))).toEqual(new Set(["evalsha"]));
      expect(scripts.sent.length).toBe(functions.sent.length);
      const libraries = (await admin.call("FUNCTION", "LIST", "LIBRARYNAME", "mem_store_*")) as unknown[];
      expect(libraries).toHaveLength(1);
      expect(JSON.stringify(libraries)).toContain(STORE_FUNCTION);
    } finally {
      functions.client.disconnect();
      scripts.client.disconnect();
    }
  });

  it("keeps working on data written before (same keys, same layout)", async () => {
    // Written by the script form, read and changed through the function form, and back.
    const scripts = counted(SCRIPTS_USER);
    const functions = counted();
    const before = new RedisStore({ client: scripts.client, prefix: "shared" });
    const after = new RedisStore({ client: functions.client, prefix: "shared" });
    try {
      await executeCommand(before, { command: "create", path: "/memories/x/a.md", file_text: "a\n" });
      const edited = await executeCommand(after, {
        command: "str_replace",
        path: "/memories/x/a.md",
        old_str: "a",
        new_str: "b",
      });
      expect(edited.isError).toBe(false);
      const listing = await executeCommand(before, { command: "view", path: "/memories" });
      expect(listing.content).toContain("/memories/x/a.md");
      expect(await after.usage()).toEqual({ files: 1, bytes: 2 });
      expect((await before.read("/memories/x/a.md"))?.data).toEqual(new TextEncoder().encode("b\n"));
    } finally {
      functions.client.disconnect();
      scripts.client.disconnect();
    }
  });

  it("keeps each key base's own keys across calls, past the number of bases it keeps", async () => {
    // The function library keeps the store-wide key names of recent key bases between calls (at most
    // 512 of them). 600 tenants, called in turn twice over, must each see only their own usage, sizes
    // and versions, before and after the kept names start again.
    const { client } = counted();
    const parent = new RedisStore({ client, prefix: "kept" });
    try {
      const tenants = Array.from({ length: 600 }, (_, i) => parent.scope(`t${i}`));
      for (const [i, store] of tenants.entries())
        await store.write(`/memories/d/f${i}.md`, new TextEncoder().encode("x".repeat(i + 1)), {
          ifAbsent: true,
        });
      for (const [i, store] of tenants.entries()) {
        expect(await store.usage()).toEqual({ files: 1, bytes: i + 1 });
        const listing = await store.list("/memories", 2);
        expect(listing?.size).toBe(i + 1);
        expect(listing?.entries.map((entry) => entry.path)).toEqual(["/memories/d", `/memories/d/f${i}.md`]);
      }
      expect(await client.call("FUNCTION", "LIST", "LIBRARYNAME", STORE_FUNCTION)).toHaveLength(1);
    } finally {
      client.disconnect();
    }
  });
});
