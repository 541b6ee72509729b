/**
 * Our implementations: `executeCommand` of @mem/core over each store. Adapters are imported lazily so
 * that one that does not load yet is reported as not available instead of stopping the run.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type ExecuteOptions, executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import type { Redis, RedisOptions } from "ioredis";
import type { PgCounters } from "./pg-counters.js";
import type { RedisCounters } from "./redis-counters.js";
import { s3BulkSeeder, s3PrefixOf } from "./s3-seed.js";
import { type Backend, type ChildEnv, messageOf, type Tool, Unavailable } from "./subject.js";

/** The paging workload's file is larger than the default 1 MiB limit, so every run allows 16 MiB. */
export const EXECUTE_OPTIONS: ExecuteOptions = { maxFileBytes: 16 * 1024 * 1024 };

const decoder = new TextDecoder();

export const toolOver = (store: MemoryStore): Tool => ({
  exec: (input) => executeCommand(store, input, EXECUTE_OPTIONS),
  async readText(path) {
    const file = await store.read(path);
    return file ? decoder.decode(file.data) : null;
  },
});

type Constructor<A extends unknown[], T> = new (...args: A) => T;

/** The named export of a workspace package, or `Unavailable` saying why not. */
const load = async <T>(specifier: string, name: string): Promise<T> => {
  let module: Record<string, unknown>;
  try {
    module = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new Unavailable(`${specifier} does not load: ${messageOf(error)}`);
  }
  const value = module[name];
  if (typeof value !== "function") throw new Unavailable(`${specifier} does not export ${name} yet`);
  return value as T;
};

/** Keeps every store it hands out, to close them all at the end. */
const storeBackend = (
  make: (ns: string) => Promise<MemoryStore>,
  extra: Partial<Pick<Backend, "requestCounters" | "bulkSeed">> & { cleanup?: () => Promise<void> } = {},
): Backend => {
  const stores: MemoryStore[] = [];
  return {
    async open(ns) {
      const store = await make(ns);
      stores.push(store);
      return toolOver(store);
    },
    ...(extra.requestCounters ? { requestCounters: extra.requestCounters } : {}),
    ...(extra.bulkSeed ? { bulkSeed: extra.bulkSeed } : {}),
    async close() {
      await Promise.allSettled(stores.map((store) => store.close?.()));
      await extra.cleanup?.();
    },
  };
};

export const memoryBackend = async (): Promise<Backend> => {
  // One process, one heap: peers of a namespace share the same store instance.
  const byNamespace = new Map<string, InMemoryStore>();
  return storeBackend(async (ns) => {
    const existing = byNamespace.get(ns);
    if (existing) return existing;
    const store = new InMemoryStore();
    byNamespace.set(ns, store);
    return store;
  });
};

type FsStoreClass = Constructor<[{ root: string }], MemoryStore>;

export const fsBackend = async (env: ChildEnv): Promise<Backend> => {
  const FsStore = await load<FsStoreClass>("@mem/fs", "FsStore");
  return storeBackend(async (ns) => new FsStore({ root: join(env.tmpDir, "fs", ns) }));
};

type SqliteStoreClass = Constructor<[{ path: string } & WindowOptions], MemoryStore>;

/**
 * One store per database file, shared by every tool over it: an application serving several agents
 * holds one store per process (its commits are shared between them), as it holds one pool for Postgres.
 */
/** Options the paging bench gives the stores that keep lines between windows. */
export interface WindowOptions {
  lineCacheBytes?: number;
}

export const sqliteBackend = async (env: ChildEnv, windows: WindowOptions = {}): Promise<Backend> => {
  const SqliteStore = await load<SqliteStoreClass>("@mem/sqlite", "SqliteStore");
  mkdirSync(join(env.tmpDir, "sqlite"), { recursive: true });
  const byNamespace = new Map<string, MemoryStore>();
  return storeBackend(async (ns) => {
    const existing = byNamespace.get(ns);
    if (existing) return existing;
    const store = new SqliteStore({ path: join(env.tmpDir, "sqlite", `${ns}.db`), ...windows });
    byNamespace.set(ns, store);
    return store;
  });
};

type EncryptedStoreClass = Constructor<
  [MemoryStore, { key: Uint8Array }],
  MemoryStore & { ready?: Promise<void> }
>;

export const encryptedFsBackend = async (env: ChildEnv): Promise<Backend> => {
  const FsStore = await load<FsStoreClass>("@mem/fs", "FsStore");
  const EncryptedStore = await load<EncryptedStoreClass>("@mem/encrypted", "EncryptedStore");
  // A throw-away key for this run only.
  const key = new Uint8Array(randomBytes(32));
  return storeBackend(async (ns) => {
    const store = new EncryptedStore(new FsStore({ root: join(env.tmpDir, "encrypted-fs", ns) }), { key });
    await store.ready;
    return store;
  });
};

type RedisStoreClass = Constructor<[{ client: Redis; prefix: string } & WindowOptions], MemoryStore>;

export const redisBackend = async (
  env: ChildEnv,
  counters: RedisCounters | undefined,
  windows: WindowOptions = {},
): Promise<Backend> => {
  if (!env.redisUrl || !counters) throw new Unavailable("no redis-server (see the run's log)");
  const RedisStore = await load<RedisStoreClass>("@mem/redis", "RedisStore");
  const options = ((await import("@mem/redis")) as { recommendedRedisOptions?: RedisOptions })
    .recommendedRedisOptions;
  // Clients are ours (to count their commands); the store does not close a client it was given.
  return storeBackend(
    async (ns) => new RedisStore({ client: counters.client(options), prefix: `bench-${ns}`, ...windows }),
    {
      requestCounters: () => counters.totals(),
      // The clients reconnect forever otherwise, and keep the process alive after the run.
      cleanup: () => counters.close(),
    },
  );
};

type PostgresStoreClass = Constructor<[{ pool: unknown; tenant: string } & WindowOptions], MemoryStore>;

export const postgresBackend = async (
  counters: PgCounters | undefined,
  windows: WindowOptions = {},
): Promise<Backend> => {
  if (!counters) throw new Unavailable("no PostgreSQL server (see the run's log)");
  const PostgresStore = await load<PostgresStoreClass>("@mem/postgres", "PostgresStore");
  // One pool (one connection) per tool instance, as separate processes would have; pools are ours (to
  // count their statements), so the store does not end them.
  return storeBackend(
    async (ns) => new PostgresStore({ pool: counters.pool(), tenant: `bench-${ns}`, ...windows }),
    {
      requestCounters: () => counters.totals(),
      cleanup: () => counters.close(),
    },
  );
};

type S3StoreClass = Constructor<[{ client: unknown; bucket: string; prefix: string }], MemoryStore>;

export const s3Backend = async (
  env: ChildEnv,
  requestCounters: () => Promise<Record<string, number>>,
  makeClient: () => Promise<{ client: unknown; destroy: () => void }>,
): Promise<Backend> => {
  if (!env.s3) throw new Unavailable("no S3 server (see the run's log)");
  const S3Store = await load<S3StoreClass>("@mem/s3", "S3Store");
  const { client, destroy } = await makeClient();
  const bucket = env.s3.bucket;
  const seeder = s3BulkSeeder(env, "");
  return storeBackend(async (ns) => new S3Store({ client, bucket, prefix: s3PrefixOf(ns, "") }), {
    requestCounters,
    bulkSeed: seeder.seed,
    cleanup: async () => {
      destroy();
      seeder.destroy();
    },
  });
};
