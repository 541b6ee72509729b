/** Client settings and the wait for a client's connection, shared by every store on the client. */
import type { Cluster, ClusterOptions, Redis, RedisOptions } from "ioredis";
import { toStoreFailure } from "./failure.js";

/**
 * Settings for a standalone client that keep a dead or unreachable server from hanging callers:
 * connecting and each command are bounded, commands are never queued while disconnected (a queued
 * command could otherwise run after its caller was told it failed), and commands cut off by a dropped
 * connection are not re-sent. The store uses them for clients it creates; use them for clients you pass.
 *
 * @example
 * ```ts
 * import { Redis } from "ioredis";
 * import { RedisStore, recommendedRedisOptions } from "@mem/redis";
 * const client = new Redis("redis://127.0.0.1:6379", recommendedRedisOptions);
 * const store = new RedisStore({ client, prefix: "tenant-1" });
 * ```
 */
export const recommendedRedisOptions = {
  connectTimeout: 3_000,
  commandTimeout: 5_000,
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
  autoResendUnfulfilledCommands: false,
  retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
} satisfies RedisOptions;

/**
 * The same for a Redis Cluster client. ioredis always queues commands per node while a node
 * reconnects; `maxRetriesPerRequest: 1` makes such commands fail after one reconnection attempt.
 *
 * @example
 * ```ts
 * import { Cluster } from "ioredis";
 * import { RedisStore, recommendedClusterOptions } from "@mem/redis";
 * const client = new Cluster([{ host: "10.0.0.1", port: 6379 }], recommendedClusterOptions);
 * const store = new RedisStore({ client, prefix: "tenant-1" });
 * ```
 */
export const recommendedClusterOptions = {
  enableOfflineQueue: false,
  slotsRefreshTimeout: 2_000,
  clusterRetryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
  redisOptions: {
    connectTimeout: 3_000,
    commandTimeout: 5_000,
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
  },
} satisfies ClusterOptions;

const readiness = new WeakMap<Redis | Cluster, Promise<void>>();
/** The reason of each client's last connection error, for the failures of operations that wait on it. */
export const lastFailures = new WeakMap<Redis | Cluster, string>();

/**
 * Settles when `client` is ready (resolves) or closes (rejects). Every operation waiting for one
 * connection attempt shares it, so the client carries one set of listeners whatever the number of
 * operations in flight (and Node's listener-leak warning stays quiet).
 */
export const readyOf = (client: Redis | Cluster): Promise<void> => {
  const pending = readiness.get(client);
  if (pending) return pending;
  const ready = new Promise<void>((resolve, reject) => {
    const settle = (error?: Error) => {
      readiness.delete(client);
      client.off("ready", onReady);
      client.off("close", onClose);
      client.off("end", onClose);
      client.off("error", onError);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => settle();
    const onClose = () => settle(new Error("closed"));
    const onError = (error: unknown) => {
      lastFailures.set(client, toStoreFailure(error).reason);
    };
    client.on("ready", onReady);
    client.on("close", onClose);
    client.on("end", onClose);
    client.on("error", onError);
  });
  // Waiters attach their own handlers; this one only keeps an unwatched rejection quiet.
  ready.catch(() => {});
  readiness.set(client, ready);
  return ready;
};

/**
 * Refuses a client whose commands ioredis would rewrite with a `keyPrefix`: the keys the store's Lua code
 * builds would not carry it while its plain commands' keys would, so listings of files (`files()`, what
 * backups and search read) and of tenants would come back empty. `where` names the option in the error.
 */
export const refuseKeyPrefix = (options: { keyPrefix?: unknown } | undefined, where: string): void => {
  const prefix = options?.keyPrefix;
  if (typeof prefix === "string" && prefix !== "") {
    throw new TypeError(
      `RedisStore: ${where} is not supported (the store's scripts build their own keys); give the namespace as \`prefix\` instead`,
    );
  }
};
