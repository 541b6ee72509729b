import { runConformance } from "@mem/conformance";
import { ROOT } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect } from "vitest";
import { RedisStore, recommendedRedisOptions } from "../src/index.js";
import { addScriptsUser, dumpKeys, SCRIPTS_USER } from "./helpers.js";

// The whole suite again with the store's code in its script form (EVALSHA): the client's user may run
// scripts but neither load nor call functions, as on a server before Redis 7 (see src/library.ts).
let server: RedisServer;
let client: Redis;
let stores = 0;
const user = SCRIPTS_USER;

beforeAll(async () => {
  server = await startRedis();
  const admin = new Redis(server.port, server.host);
  await addScriptsUser(admin);
  admin.disconnect();
  client = new Redis({ port: server.port, host: server.host, ...user, ...recommendedRedisOptions });
  client.on("error", () => {});
});
afterAll(async () => {
  // The suite ran in the script form: no library was ever loaded.
  const admin = new Redis(server.port, server.host);
  expect(await admin.call("FUNCTION", "LIST")).toEqual([]);
  admin.disconnect();
  client?.disconnect();
  await server?.stop();
});

runConformance<RedisStore>({
  name: "RedisStore in script form (no functions for its user)",
  create: () => {
    stores += 1;
    return new RedisStore({ client, prefix: `script-conformance-${stores}` });
  },
  peer: (store) =>
    new RedisStore({
      url: `redis://${user.username}:${user.password}@${server.host}:${server.port}`,
      prefix: store.keyBase,
    }),
  destroy: async (store) => {
    await store.delete(ROOT);
    await client.del(`${store.keyBase}seq`);
  },
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => {
    stores += 1;
    return new RedisStore({ client, prefix: `script-conformance-expiring-${stores}`, ...expiry });
  },
  erasure: { dump: () => dumpKeys([client]) },
});
