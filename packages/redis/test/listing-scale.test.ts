import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { bytes } from "./helpers.js";

// A listing of 50,000 files costs what view shows: the commands the script runs inside Redis (counted
// with MONITOR, source "lua") and the bytes the client receives stay bounded by the 1,000 entries shown.
let server: RedisServer;
let monitorClient: Redis;
let luaCommands: string[] = [];
let markersSeen = new Set<string>();

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  monitorClient?.disconnect();
  await server?.stop();
});

const seed = async (stores: MemoryStore[], paths: string[]) => {
  for (let i = 0; i < paths.length; i += 2_000) {
    await Promise.all(
      paths
        .slice(i, i + 2_000)
        .flatMap((path) => stores.map((store) => store.write(path, bytes(`${path}\n`), { ifAbsent: true }))),
    );
  }
};

const startMonitor = async () => {
  if (monitorClient) return;
  monitorClient = new Redis(server.port, server.host);
  const monitor = await monitorClient.monitor();
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (String(args[0]).toLowerCase() === "echo" && source !== "lua") markersSeen.add(String(args[1]));
    else if (source === "lua") luaCommands.push(String(args[0]).toLowerCase());
  });
};

/** Sends a marker through the store's connection and waits until MONITOR has shown it. */
const mark = async (store: RedisStore) => {
  const marker = `marker-${Math.random()}`;
  await store.client.echo(marker);
  while (!markersSeen.has(marker)) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** Runs view, and says what it cost: commands inside Redis, and bytes read by the store's connection. */
const measuredView = async (store: RedisStore, path: string) => {
  const socket = (store.client as Redis).stream;
  // MONITOR lines arrive on another connection, late under load: count between two markers.
  await mark(store);
  luaCommands = [];
  markersSeen = new Set();
  const bytesBefore = socket.bytesRead;
  const result = await executeCommand(store, { command: "view", path });
  const bytesRead = socket.bytesRead - bytesBefore;
  await mark(store);
  return { result, commands: luaCommands.length, bytesRead };
};

const layouts: Array<[string, (i: number) => string]> = [
  ["500 directories of 100 files", (i) => `/memories/d${String(i % 500).padStart(3, "0")}/f${i}.md`],
  ["50,000 files in /memories itself", (i) => `/memories/f${i}.md`],
  [
    "10 × 10 directories of 500 files (depth 3)",
    (i) => `/memories/a${i % 10}/b${Math.floor(i / 10) % 10}/f${i}.md`,
  ],
];

describe("view /memories over 50,000 files", { timeout: 300_000 }, () => {
  for (const [name, pathOf] of layouts) {
    it(`reads only what it shows: ${name}`, async () => {
      const store = new RedisStore({ url: server.url, prefix: `scale-${name.length}-${name.charCodeAt(0)}` });
      const model = new InMemoryStore();
      await seed(
        [store, model],
        Array.from({ length: 50_000 }, (_, i) => pathOf(i)),
      );
      await startMonitor();

      const { result, commands, bytesRead } = await measuredView(store, "/memories");
      expect(result).toEqual(await executeCommand(model, { command: "view", path: "/memories" }));
      expect(commands).toBeLessThanOrEqual(1_100);
      expect(bytesRead).toBeLessThanOrEqual(150_000);
      // A directory below is one script call too, and as cheap.
      const sub = pathOf(0).split("/").slice(0, 3).join("/");
      if (sub !== pathOf(0)) {
        const below = await measuredView(store, sub);
        expect(below.result).toEqual(await executeCommand(model, { command: "view", path: sub }));
        expect(below.commands).toBeLessThanOrEqual(1_100);
      }
      await store.close();
    });
  }
});
