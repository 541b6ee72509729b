import { once } from "node:events";
import { executeCommand } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { dumpKeys } from "./helpers.js";

// Counts the commands the store's connection sends, with MONITOR on a server of its own.
let server: RedisServer;
let monitorClient: Redis;
let client: Redis;
const seen: string[][] = [];

beforeAll(async () => {
  server = await startRedis();
  monitorClient = new Redis(server.port, server.host);
  const monitor = await monitorClient.monitor();
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (source !== "lua") seen.push(args);
  });
  client = new Redis(server.port, server.host);
  if (client.status !== "ready") await once(client, "ready");
});
afterAll(async () => {
  client?.disconnect();
  monitorClient?.disconnect();
  await server?.stop();
});

const mark = async (): Promise<string> => {
  const marker = `marker-${Math.random()}`;
  await client.echo(marker);
  while (!seen.some((args) => args[1] === marker)) await new Promise((resolve) => setTimeout(resolve, 5));
  return marker;
};

const commandsOf = async (action: () => Promise<unknown>): Promise<string[]> => {
  const start = await mark();
  await action();
  const end = await mark();
  const from = seen.findIndex((args) => args[1] === start);
  const to = seen.findIndex((args) => args[1] === end);
  return seen.slice(from + 1, to).map((args) => String(args[0]).toLowerCase());
};

describe("RedisStore erasure", () => {
  it(
    "tenants() pages through 10,000 tenants with at most 1 + 2 × page commands per page",
    { timeout: 300_000 },
    async () => {
      const store = new RedisStore({ client, prefix: "many" });
      const ids = Array.from({ length: 10_000 }, (_, i) => `t${String(i).padStart(5, "0")}`);
      for (let i = 0; i < ids.length; i += 500) {
        await Promise.all(
          ids
            .slice(i, i + 500)
            .map((id) =>
              store.scope(id).write("/memories/x.md", new TextEncoder().encode(id), { ifAbsent: true }),
            ),
        );
      }
      const seenIds: string[] = [];
      let after: string | undefined;
      let pages = 0;
      while (true) {
        let page: Awaited<ReturnType<RedisStore["tenants"]>> | undefined;
        const commands = await commandsOf(async () => {
          page = await store.tenants(after === undefined ? { limit: 250 } : { after, limit: 250 });
        });
        expect(commands[0]).toBe("zrange");
        expect(commands.length).toBeLessThanOrEqual(1 + 2 * 250);
        for (const t of page!.tenants) {
          expect(t).toEqual({ id: t.id, files: 1, bytes: 6 });
          seenIds.push(t.id);
        }
        pages += 1;
        after = page!.next;
        if (after === undefined) break;
      }
      expect(pages).toBe(40);
      expect(seenIds).toEqual(ids);
    },
  );

  it("a purge that fails after some deletes completes when run again: no key of the tenant is left", async () => {
    await client.flushall(); // this file's own server: the scans below then read only this test's keys
    const id = `halfway${Math.random().toString(36).slice(2, 8)}`;
    let unlinks = 0;
    // The real client, with UNLINK failing after 5 calls, as if the process died there.
    const failing = new Proxy(client, {
      get(target, key, receiver) {
        if (key === "unlink") {
          return (...args: Parameters<Redis["unlink"]>) => {
            unlinks += 1;
            if (unlinks > 5) return Promise.reject(new Error("connection lost"));
            return target.unlink(...args);
          };
        }
        const value = Reflect.get(target, key, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const store = new RedisStore({ client, prefix: "halfway" });
    const scoped = store.scope(id);
    for (let i = 0; i < 10; i++) {
      await executeCommand(scoped, {
        command: "create",
        path: `/memories/d${i}/f.md`,
        file_text: `${id}-${i}\n`,
      });
    }
    await expect(new RedisStore({ client: failing, prefix: "halfway" }).scope(id).purge()).rejects.toThrow();
    const between = (await dumpKeys([client])).filter((r) => r.key.includes(id) || r.value.includes(id));
    expect(between.length).toBeGreaterThan(0);
    expect((await store.tenants()).tenants.map((t) => t.id)).toEqual([id]);
    expect(await scoped.purge()).toMatchObject({ files: 10 });
    const after = (await dumpKeys([client])).filter((r) => r.key.includes(id) || r.value.includes(id));
    expect(after).toEqual([]);
    expect((await store.tenants()).tenants).toEqual([]);
  });
});
