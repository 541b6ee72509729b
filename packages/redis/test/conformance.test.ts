import { runConformance } from "@mem/conformance";
import { ROOT } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { RedisStore, recommendedRedisOptions } from "../src/index.js";
import { dumpKeys } from "./helpers.js";

let server: RedisServer;
let client: Redis;
let stores = 0;

beforeAll(async () => {
  server = await startRedis();
  // With ioredis's auto-pipelining on, as applications turn it on for speed: the store's calls must not
  // depend on how the client batches commands (the peer below has it off).
  client = new Redis(server.port, server.host, { ...recommendedRedisOptions, enableAutoPipelining: true });
  client.on("error", () => {});
});
afterAll(async () => {
  client?.disconnect();
  await server?.stop();
});

runConformance<RedisStore>({
  name: "RedisStore on a single redis-server",
  create: () => {
    stores += 1;
    return new RedisStore({ client, prefix: `conformance-${stores}` });
  },
  // A second client of its own on the same server and prefix.
  peer: (store) => new RedisStore({ url: server.url, prefix: store.keyBase }),
  destroy: async (store) => {
    await store.delete(ROOT);
    await client.del(`${store.keyBase}seq`);
  },
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => {
    stores += 1;
    return new RedisStore({ client, prefix: `conformance-expiring-${stores}`, ...expiry });
  },
  erasure: { dump: () => dumpKeys([client]) },
});
