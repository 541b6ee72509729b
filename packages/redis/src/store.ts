import {
  AlreadyExistsError,
  ConflictError,
  type FileData,
  type ListEntry,
  type Listing,
  type MemoryStore,
  NotADirectoryError,
  NotFoundError,
  ROOT,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  StoreFailureError,
  type Version,
  type WriteCondition,
} from "@mem/core";
import { type Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";
import { toStoreFailure } from "./failure.js";
import { keyBaseOf, routingKeyOf } from "./keys.js";
import { STORE_SCRIPT, STORE_SCRIPT_SHA } from "./script.js";

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

interface CommonOptions {
  /**
   * Namespace of this store's keys; stores with different prefixes never see each other's files.
   * Gets wrapped into a Redis Cluster hash tag (`tenant-1` → `{tenant-1}:`) unless it already holds
   * one (`app:{tenant-1}:`). Default `mem`.
   */
  prefix?: string;
  /**
   * Files not read or written for this many seconds disappear. Every store instance sharing a prefix
   * should use the same value. Default: no expiry.
   */
  ttlSeconds?: number;
  /**
   * Upper bound in milliseconds on one store operation, whatever the client's own settings; when it
   * passes, the operation fails with `StoreFailureError("timed out")`. Default 10 000.
   */
  operationTimeoutMs?: number;
}

export type RedisStoreOptions = CommonOptions &
  (
    | {
        /** An ioredis `Redis` or `Cluster` client. The store never closes it. */
        client: Redis | Cluster;
      }
    | {
        /** A `redis://` or `rediss://` URL; the store creates the client and closes it in `close()`. */
        url: string;
        /** Extra ioredis options for the created client, on top of `recommendedRedisOptions`. */
        redisOptions?: RedisOptions;
      }
  );

type Reply = Buffer | number | null | Reply[];

const text = (value: Reply | undefined): string => (Buffer.isBuffer(value) ? value.toString("utf8") : "");

/**
 * A `MemoryStore` on Redis or Redis Cluster. Each operation is one Lua script call: atomic, one round
 * trip, and consistent across any number of processes sharing the server.
 *
 * @example
 * ```ts
 * import { executeCommand } from "@mem/core";
 * import { RedisStore } from "@mem/redis";
 * const store = new RedisStore({ url: "redis://127.0.0.1:6379", prefix: "tenant-1" });
 * await executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "hi\n" });
 * await store.close();
 * ```
 */
export class RedisStore implements MemoryStore {
  readonly capabilities: StoreCapabilities = { crossProcessSafe: true, atomicDirectoryRename: true };
  /** The underlying ioredis client. */
  readonly client: Redis | Cluster;
  /** The key base every key of this store starts with. */
  readonly keyBase: string;
  private readonly routingKey: string;
  private readonly ttlMs: string;
  private readonly timeoutMs: number;
  private readonly ownsClient: boolean;
  private lastFailure: string | undefined;

  constructor(options: RedisStoreOptions) {
    this.keyBase = keyBaseOf(options.prefix ?? "mem");
    this.routingKey = routingKeyOf(this.keyBase);
    const ttl = options.ttlSeconds ?? 0;
    if (!(Number.isFinite(ttl) && ttl >= 0)) {
      throw new TypeError("RedisStore: `ttlSeconds` must be a non-negative number");
    }
    this.ttlMs = String(Math.round(ttl * 1000));
    this.timeoutMs = options.operationTimeoutMs ?? 10_000;
    if ("client" in options) {
      this.client = options.client;
      this.ownsClient = false;
    } else {
      const client = new Redis(options.url, { ...recommendedRedisOptions, ...options.redisOptions });
      // Failures surface per operation as StoreFailureError; without a listener ioredis would log them.
      client.on("error", (error: unknown) => {
        this.lastFailure = toStoreFailure(error).reason;
      });
      this.client = client;
      this.ownsClient = true;
    }
  }

  async read(path: string): Promise<FileData | null> {
    const reply = await this.run("read", [path]);
    if (!Array.isArray(reply)) return null;
    const [data, version] = reply;
    if (!Buffer.isBuffer(data)) throw new StoreFailureError("unexpected reply from redis");
    return { data: new Uint8Array(data), version: text(version) };
  }

  async stat(path: string): Promise<Stat | null> {
    const reply = await this.run("stat", [path]);
    if (!Array.isArray(reply)) return null;
    if (text(reply[0]) === "f") return { kind: "file", size: Number(reply[1]) };
    return { kind: "directory" };
  }

  async list(dir: string, depth: number): Promise<Listing | null> {
    const reply = await this.run("list", [dir, String(depth)]);
    if (!Array.isArray(reply)) return null;
    const entries: ListEntry[] = [];
    for (let i = 1; i + 3 < reply.length; i += 4) {
      entries.push({
        path: text(reply[i]),
        kind: text(reply[i + 1]) === "f" ? "file" : "directory",
        size: Number(reply[i + 2]),
        depth: Number(reply[i + 3]),
      });
    }
    return { size: Number(reply[0]), entries };
  }

  /** Walks the directory index breadth first: one HGETALL per directory, then the sizes in one pipeline. */
  async files(): Promise<StoredFile[]> {
    await this.connected();
    const paths: string[] = [];
    for (let dirs = [ROOT]; dirs.length > 0; ) {
      const indexes = await Promise.all(dirs.map((dir) => this.client.hgetall(`${this.keyBase}d:${dir}`)));
      const next: string[] = [];
      indexes.forEach((index, i) => {
        for (const [name, kind] of Object.entries(index)) {
          (kind === "d" ? next : paths).push(`${dirs[i]}/${name}`);
        }
      });
      dirs = next;
    }
    const sizes = await Promise.all(
      paths.map((path) => this.client.hstrlen(`${this.keyBase}f:${path}`, "d")),
    );
    return paths.map((path, i) => ({ path, size: sizes[i] ?? 0 }));
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    const expected = "ifVersion" in condition ? condition.ifVersion : "";
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const reply = await this.run("write", [path, bytes, expected]);
    const [status, detail] = Array.isArray(reply) ? reply : [];
    switch (text(status)) {
      case "ok":
        return { version: text(detail) };
      case "exists":
        throw new AlreadyExistsError(path);
      case "notdir":
        throw new NotADirectoryError(path, text(detail));
      case "conflict":
        throw new ConflictError(path);
      default:
        throw new StoreFailureError("unexpected reply from redis");
    }
  }

  async delete(path: string): Promise<boolean> {
    return (await this.run("delete", [path])) === 1;
  }

  async rename(from: string, to: string): Promise<void> {
    const reply = await this.run("rename", [from, to]);
    const [status, detail] = Array.isArray(reply) ? reply : [];
    switch (text(status)) {
      case "ok":
        return;
      case "notfound":
        throw new NotFoundError(from);
      case "exists":
        throw new AlreadyExistsError(to);
      case "inside":
        // Callers (core's rename) rule this out before calling; reaching it is a usage error.
        throw new RangeError(`RedisStore.rename: cannot move ${from} into itself`);
      case "notdir":
        throw new NotADirectoryError(to, text(detail));
      default:
        throw new StoreFailureError("unexpected reply from redis");
    }
  }

  async close(): Promise<void> {
    if (!this.ownsClient || this.client.status === "end") return;
    const ended = new Promise<void>((resolve) => this.client.once("end", () => resolve()));
    try {
      await this.client.quit();
    } catch {
      // The connection is already gone; disconnect below settles it.
    }
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, 1_000);
    });
    await Promise.race([ended, grace]);
    clearTimeout(timer);
    if ((this.client.status as string) !== "end") this.client.disconnect();
  }

  /** Runs one operation of the store script: EVALSHA, and EVAL once when the server lacks the script. */
  private async run(op: string, args: Array<string | Buffer>): Promise<Reply> {
    const argv = [this.keyBase, this.ttlMs, op, ...args];
    const call = async (): Promise<Reply> => {
      await this.connected();
      try {
        return (await this.client.callBuffer("evalsha", [
          STORE_SCRIPT_SHA,
          1,
          this.routingKey,
          ...argv,
        ])) as Reply;
      } catch (error) {
        if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
        return (await this.client.callBuffer("eval", [STORE_SCRIPT, 1, this.routingKey, ...argv])) as Reply;
      }
    };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreFailureError("timed out")), this.timeoutMs);
      timer.unref();
    });
    try {
      return await Promise.race([call(), deadline]);
    } catch (error) {
      throw toStoreFailure(error);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Resolves once the client is ready. A connection attempt under way is awaited; a client that is
   * between reconnection attempts fails at once, so a dead server gives prompt errors and no command
   * waits in a queue to run after its caller was told it failed.
   */
  private connected(): Promise<void> {
    const client = this.client;
    switch (client.status as string) {
      case "ready":
        return Promise.resolve();
      case "wait":
        client.connect().catch(() => {});
        break;
      case "connecting":
      case "connect":
        break;
      case "end":
      case "disconnecting":
        return Promise.reject(new StoreFailureError("connection closed"));
      default:
        return Promise.reject(new StoreFailureError(this.lastFailure ?? "not connected"));
    }
    return new Promise<void>((resolve, reject) => {
      const settle = (error?: StoreFailureError) => {
        client.off("ready", onReady);
        client.off("close", onClose);
        client.off("end", onClose);
        client.off("error", onError);
        if (error) reject(error);
        else resolve();
      };
      const onReady = () => settle();
      const onClose = () => settle(new StoreFailureError(this.lastFailure ?? "not connected"));
      const onError = (error: unknown) => {
        this.lastFailure = toStoreFailure(error).reason;
      };
      client.on("ready", onReady);
      client.on("close", onClose);
      client.on("end", onClose);
      client.on("error", onError);
    });
  }
}
