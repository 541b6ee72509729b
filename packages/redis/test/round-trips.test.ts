import { once } from "node:events";
import { executeCommand, type MemoryStore } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { bytes } from "./helpers.js";

// Counts the commands the store's connection sends, with MONITOR on a server of its own. Commands a
// script runs inside Redis show up with the source "lua" and are not round trips.
let server: RedisServer;
let monitorClient: Redis;
let store: RedisStore;
const seen: string[][] = [];
let seenInScripts: string[][] = [];

beforeAll(async () => {
  server = await startRedis();
  monitorClient = new Redis(server.port, server.host);
  const monitor = await monitorClient.monitor();
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (source === "lua") seenInScripts.push(args);
    else seen.push(args);
  });
  store = new RedisStore({ url: server.url, prefix: "trips" });
  if (store.client.status !== "ready") await once(store.client, "ready");
});
afterAll(async () => {
  await store?.close();
  monitorClient?.disconnect();
  await server?.stop();
});

const mark = async (): Promise<string> => {
  const marker = `marker-${Math.random()}`;
  await store.client.echo(marker);
  while (!seen.some((args) => args[1] === marker)) await new Promise((resolve) => setTimeout(resolve, 5));
  return marker;
};

/** The commands `action` sent, between two markers so that none is missed or misattributed. */
const commandsOf = async (action: () => Promise<unknown>): Promise<string[]> => {
  const start = await mark();
  seenInScripts = [];
  await action();
  const end = await mark();
  const from = seen.findIndex((args) => args[1] === start);
  const to = seen.findIndex((args) => args[1] === end);
  return seen.slice(from + 1, to).map((args) => String(args[0]).toLowerCase());
};

/** Counts the store method calls `executeCommand` makes. */
const counting = (inner: MemoryStore) => {
  let calls = 0;
  const proxy = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || key === "isReservedName") return value;
      return (...args: unknown[]) => {
        calls += 1;
        return value.apply(target, args);
      };
    },
  });
  return { proxy, calls: () => calls };
};

describe("round trips", () => {
  it("loads the function library once per server: FCALL, FUNCTION LOAD on 'not found', FCALL", async () => {
    expect(await commandsOf(() => store.stat("/memories"))).toEqual(["fcall", "function", "fcall"]);
    expect(await commandsOf(() => store.stat("/memories"))).toEqual(["fcall"]);
  });

  it("loads it again when the server lost it (FUNCTION FLUSH)", async () => {
    await store.client.call("FUNCTION", "FLUSH");
    expect(await commandsOf(() => store.stat("/memories"))).toEqual(["fcall", "function", "fcall"]);
    expect(await commandsOf(() => store.stat("/memories"))).toEqual(["fcall"]);
  });

  it("costs exactly one FCALL per store operation", async () => {
    await store.write("/memories/dir/a.txt", bytes("a\nb\n"), { ifAbsent: true });
    const version = (await store.read("/memories/dir/a.txt"))!.version;
    const operations: Array<[string, () => Promise<unknown>]> = [
      ["read", () => store.read("/memories/dir/a.txt")],
      ["stat", () => store.stat("/memories/dir")],
      ["list", () => store.list("/memories", 2)],
      ["write (create)", () => store.write("/memories/dir/b.txt", bytes("b"), { ifAbsent: true })],
      ["write (edit)", () => store.write("/memories/dir/a.txt", bytes("c"), { ifVersion: version })],
      ["rename", () => store.rename("/memories/dir", "/memories/moved")],
      ["delete", () => store.delete("/memories/moved")],
    ];
    for (const [name, operation] of operations) {
      expect(await commandsOf(operation), name).toEqual(["fcall"]);
    }
  });

  it("costs one round trip per store call for every tool command", async () => {
    await store.write("/memories/notes/todo.md", bytes("one\ntwo\n"), { ifAbsent: true });
    const inputs = [
      { command: "view", path: "/memories" },
      { command: "view", path: "/memories/notes" },
      { command: "view", path: "/memories/notes/todo.md" },
      { command: "create", path: "/memories/notes/new.md", file_text: "x\n" },
      { command: "str_replace", path: "/memories/notes/todo.md", old_str: "one", new_str: "1" },
      { command: "insert", path: "/memories/notes/todo.md", insert_line: 1, insert_text: "1.5" },
      { command: "rename", old_path: "/memories/notes", new_path: "/memories/archive" },
      { command: "delete", path: "/memories/archive" },
    ];
    const trips: Record<string, number> = {};
    for (const input of inputs) {
      const { proxy, calls } = counting(store);
      let result: { isError: boolean } | undefined;
      const commands = await commandsOf(async () => {
        result = await executeCommand(proxy, input);
      });
      expect(result?.isError, input.command).toBe(false);
      expect(commands.every((command) => command === "fcall")).toBe(true);
      // An edit is one call of the store's `update`: a read and a conditional write.
      const edit = input.command === "str_replace" || input.command === "insert";
      expect(commands.length, input.command).toBe(calls() * (edit ? 2 : 1));
      trips[`${input.command} ${input.path ?? input.old_path}`] = commands.length;
    }
    // The figures the README states.
    expect(trips).toEqual({
      "view /memories": 1,
      "view /memories/notes": 1,
      "view /memories/notes/todo.md": 1,
      "create /memories/notes/new.md": 1,
      "str_replace /memories/notes/todo.md": 2,
      "insert /memories/notes/todo.md": 2,
      "rename /memories/notes": 1,
      "delete /memories/archive": 1,
    });
  });

  it("lists without looking below the shown depth and without scanning the keyspace", async () => {
    const listScript = async () => {
      await commandsOf(() => store.list("/memories/tree", 2));
      return seenInScripts.map((args) => String(args[0]).toLowerCase());
    };
    await store.write("/memories/tree/a/x.txt", bytes("x"), { ifAbsent: true });
    await store.write("/memories/tree/b.txt", bytes("b"), { ifAbsent: true });
    const before = await listScript();
    for (let i = 0; i < 30; i++) {
      await store.write(`/memories/tree/a/deep/er/f${i}.txt`, bytes("f"), { ifAbsent: true });
    }
    const after = await listScript();
    // The only new entry within two levels is /memories/tree/a/deep: one size lookup more.
    expect(after.length).toBe(before.length + 1);
    // No clock without expiry; the directories' sizes come in one HMGET per directory listed, the listed
    // directory's own size in the same HMGET as its subdirectories'.
    expect(new Set(after)).toEqual(new Set(["exists", "zrange", "hmget", "hstrlen"]));
    expect((await store.list("/memories/tree", 2))?.size).toBe(32);
  });

  it("runs a fixed number of commands inside the server per tool command", async () => {
    const kinds = new RedisStore({ client: store.client, prefix: "kinds" }).scope("t");
    const note = (i: number) => `state: 0\n${"fact\n".repeat(20)}topic ${i}\n`;
    for (const path of ["notes/n0.md", "notes/n1.md", "notes/n2.md", "notes/n3.md", "projects/p0.md"]) {
      await executeCommand(kinds, {
        command: "create",
        path: `/memories/${path}`,
        file_text: note(path.length),
      });
    }
    await executeCommand(kinds, { command: "create", path: "/memories/shared/log.md", file_text: "# log\n" });
    // Large enough for its bytes to be kept between windows (see line-cache.ts).
    const big = Array.from({ length: 2_000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n");
    await executeCommand(kinds, { command: "create", path: "/memories/big.md", file_text: big });
    const inputs = [
      { command: "view", path: "/memories" },
      { command: "view", path: "/memories/notes/n0.md" },
      { command: "view", path: "/memories/notes/n0.md", view_range: [2, 4] },
      { command: "view", path: "/memories/big.md", view_range: [10, 20] },
      { command: "view", path: "/memories/big.md", view_range: [30, 40] },
      { command: "create", path: "/memories/scratch/a.md", file_text: "draft\n" },
      { command: "str_replace", path: "/memories/notes/n1.md", old_str: "state: 0", new_str: "state: 1" },
      { command: "insert", path: "/memories/shared/log.md", insert_line: 1, insert_text: "line" },
      { command: "rename", old_path: "/memories/scratch/a.md", new_path: "/memories/scratch/b.md" },
      { command: "delete", path: "/memories/scratch/b.md" },
    ];
    const inside: Record<string, string> = {};
    for (const input of inputs) {
      let result: { isError: boolean } | undefined;
      const sent = await commandsOf(async () => {
        result = await executeCommand(kinds, input);
      });
      expect(result?.isError, input.command).toBe(false);
      const counts = new Map<string, number>();
      for (const args of seenInScripts) {
        const name = String(args[0]).toLowerCase();
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      const key = `${input.command}${"view_range" in input ? " range" : ""} ${input.path ?? input.old_path}`;
      inside[key in inside ? `${key} again` : key] =
        `${sent.length} calls, ${seenInScripts.length} inside: ${[...counts].map(([n, c]) => `${n} ${c}`).join(", ")}`;
    }
    // Without expiry: no clock and no access times; a view reads what it shows, one HMGET per directory
    // for its entries' kinds and another for its subdirectories' sizes (and, for the directory viewed,
    // its own). The create makes `scratch`, the
    // rename and delete empty it, so they update its parent's index too.
    expect(inside).toEqual({
      "view /memories": "1 calls, 16 inside: zrange 4, hmget 5, hstrlen 7",
      "view /memories/notes/n0.md": "1 calls, 2 inside: hmget 1, del 1",
      "view range /memories/notes/n0.md": "1 calls, 2 inside: del 1, hmget 1",
      // A large file: read whole the first time, with the store's generation (started here); the next
      // window only asks for the file's version and the generation.
      "view range /memories/big.md": "1 calls, 5 inside: del 1, hmget 1, get 1, exists 1, set 1",
      "view range /memories/big.md again": "1 calls, 3 inside: del 1, hget 1, get 1",
      "create /memories/scratch/a.md":
        "1 calls, 20 inside: exists 5, del 1, incr 1, hset 3, zadd 2, hincrby 8",
      "str_replace /memories/notes/n1.md":
        "2 calls, 8 inside: del 2, hmget 1, exists 1, hget 1, hstrlen 1, incr 1, hset 1",
      "insert /memories/shared/log.md":
        "2 calls, 11 inside: del 2, hmget 1, exists 1, hget 1, hstrlen 1, incr 1, hset 1, hincrby 3",
      "rename /memories/scratch/a.md":
        "1 calls, 35 inside: exists 7, del 1, hstrlen 1, hincrby 12, hdel 7, zrem 2, rename 1, hset 2, zadd 2",
      "delete /memories/scratch/b.md":
        "1 calls, 23 inside: exists 3, del 2, hstrlen 1, hincrby 8, hdel 7, zrem 2",
    });
  });
});
