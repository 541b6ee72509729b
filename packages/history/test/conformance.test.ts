import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { runConformance } from "@mem/conformance";
import { InMemoryStore, type MemoryStore, ROOT } from "@mem/core";
import { FsStore } from "@mem/fs";
import { RedisStore } from "@mem/redis";
import { S3Store } from "@mem/s3";
import { type RedisServer, type S3TestServer, startRedis, startS3 } from "@mem/testkit";
import { afterAll, beforeAll } from "vitest";
import { HistoryStore } from "../src/index.js";

// Every edit writes twice (the kept version, then the file), which doubles the window in which concurrent
// editors collide on slow backends: the fs and S3 runs get a longer timeout per test.
const SLOW = { timeout: 240_000 };

// Every test gets a fresh store; the history sits in the same store (the default) unless said otherwise.
const inners = new WeakMap<HistoryStore, MemoryStore>();
const wrap = (inner: MemoryStore, history?: MemoryStore) => {
  const store = new HistoryStore(inner, history ? { history } : {});
  inners.set(store, inner);
  return store;
};
const innerOf = (store: HistoryStore) => inners.get(store)!;

runConformance({
  name: "HistoryStore over InMemoryStore",
  tenants: true,
  create: () => wrap(new InMemoryStore()),
  peer: (store) => wrap(innerOf(store)),
});

runConformance({
  name: "HistoryStore over InMemoryStore, history in a second store",
  tenants: true,
  create: () => wrap(new InMemoryStore(), new InMemoryStore()),
});

runConformance({
  name: "HistoryStore over FsStore",
  tenants: true,
  create: () => wrap(new FsStore({ root: join(mkdtempSync(join(tmpdir(), "mem-history-")), "memories") })),
  peer: (store) => wrap(new FsStore({ root: (innerOf(store) as FsStore).root })),
  destroy: async (store) => {
    const root = (innerOf(store) as FsStore).root;
    await store.close();
    rmSync(join(root, ".."), { recursive: true, force: true });
  },
  options: SLOW,
});

let redis: RedisServer;
let s3: S3TestServer;
let s3Client: S3Client;
let count = 0;
beforeAll(async () => {
  [redis, s3] = await Promise.all([startRedis(), startS3()]);
  s3Client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    credentials: s3.credentials,
    forcePathStyle: true,
    maxAttempts: 3,
  });
});
afterAll(async () => {
  s3Client?.destroy();
  await Promise.all([redis?.stop(), s3?.stop()]);
});

runConformance<HistoryStore>({
  name: "HistoryStore over RedisStore",
  tenants: true,
  create: () => wrap(new RedisStore({ url: redis.url, prefix: `history-${++count}` })),
  peer: (store) => wrap(new RedisStore({ url: redis.url, prefix: (innerOf(store) as RedisStore).keyBase })),
  destroy: async (store) => {
    await store.delete(ROOT);
    await store.close();
  },
});

// One client for every store, as an application would share it (each client keeps its own sockets).
const s3Store = (prefix: string) => new S3Store({ client: s3Client, bucket: s3.bucket, prefix });
const prefixes = new WeakMap<MemoryStore, string>();
const sides = new WeakMap<HistoryStore, MemoryStore>();

// On S3 the versions go to a second store: in the bucket itself they would double the requests that the
// 50 concurrent editors of the suite send to s3rver, which on a busy machine takes longer than the test
// may. (Restore over S3 with versions under a second prefix is tested in history.test.ts.)
runConformance<HistoryStore>({
  name: "HistoryStore over S3Store, versions in a second store (s3rver behind the conditional-write proxy)",
  tenants: true,
  create: () => {
    const prefix = `h${++count}/`;
    const inner = s3Store(prefix);
    prefixes.set(inner, prefix);
    const side = new InMemoryStore();
    const store = wrap(inner, side);
    sides.set(store, side);
    return store;
  },
  peer: (store) => wrap(s3Store(prefixes.get(innerOf(store))!), sides.get(store)!),
  destroy: async (store) => {
    await innerOf(store).delete(ROOT);
    await store.close();
  },
  options: SLOW,
});
