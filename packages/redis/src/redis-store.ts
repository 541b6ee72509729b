import {
  AlreadyExistsError,
  backoffDelay,
  ConflictError,
  checkOptions,
  checkTenant,
  DEFAULT_LINE_CACHE_BYTES,
  ErasingError,
  type ExpiryOptions,
  expiryOf,
  type FileData,
  type FileOrListing,
  isStoreError,
  LINE_CACHE_SMALLEST_BYTES,
  type LineCache,
  type LineWindow,
  type Listing,
  type ListOptions,
  type MemoryStore,
  NotADirectoryError,
  type PurgeOptions,
  type PurgeResult,
  purgeOptions,
  QuotaExceededError,
  ROOT,
  renameOutcome,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  StoreFailureError,
  type SweepResult,
  sleep,
  type TenantPage,
  type TenantsOptions,
  tenantPageOptions,
  type Usage,
  unscopedPurgeError,
  updateInTurn,
  type Version,
  type WriteCondition,
  type WriteQuota,
} from "@mem/core";
import { type Cluster, Command, Redis, type RedisOptions } from "ioredis";
import { lastFailures, readyOf, recommendedRedisOptions, refuseKeyPrefix } from "./connection.js";
import { mayBeApplied, toStoreFailure } from "./failure.js";
import { keyBaseOf, routingKeyOf, scopedKeyBase } from "./keys.js";
import { loadLibrary, refusesFunctions, scriptOnly } from "./library.js";
import { lineCacheOf } from "./line-cache.js";
import { CHANGES, listArguments, listingOf, type Operation, type Reply, text } from "./replies.js";
import { STORE_FUNCTION, STORE_SCRIPT, STORE_SCRIPT_SHA } from "./script.js";
import { listTenants, needsRegistration, purgeTenant, registerTenant } from "./tenants.js";

/** Carries a scope's key base past the `prefix` check, which refuses the tags that scopes use. */
const SCOPED_BASE = Symbol("RedisStore.scopedBase");
/** A scope's parent key base and tenant id, for its tenant index and `purge()`. */
const SCOPE_OF = Symbol("RedisStore.scopeOf");

interface CommonOptions extends ExpiryOptions {
  /**
   * Namespace of this store's keys; stores with different prefixes never see each other's files.
   * Gets wrapped into a Redis Cluster hash tag (`tenant-1` → `{tenant-1}:`) unless it already holds
   * one (`app:{tenant-1}:`). Default `mem`. A hash tag with a `tenant` segment (`app:tenant:alice`) is a
   * `TypeError`: its keys would be those of a scope of another store.
   */
  prefix?: string;
  /**
   * @deprecated Use `expireAfterSeconds`, which means the same (0 here means no expiry).
   */
  ttlSeconds?: number;
  /**
   * Upper bound in milliseconds on one store operation, whatever the client's own settings; when it
   * passes, the operation fails with `StoreFailureError("timed out")`. Default 10 000.
   */
  operationTimeoutMs?: number;
  /**
   * Bytes of large files (64 KiB and up) kept in this process between `view_range` windows, with their
   * line offsets: the next window of an unchanged file asks the server only whether it changed (a reply
   * of a few bytes, not the file). Shared by every store and scope on one client and sized by the first
   * of them. `0` turns it off. Default 32 MiB.
   */
  lineCacheBytes?: number;
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

/** Attempts of `update` before it gives up on a file other processes keep changing. */
const UPDATE_ATTEMPTS = 100;

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
  readonly backend = "redis";
  readonly capabilities: StoreCapabilities = { crossProcessSafe: true, atomicDirectoryRename: true };
  /** The underlying ioredis client. */
  readonly client: Redis | Cluster;
  /** The key base every key of this store starts with. */
  readonly keyBase: string;
  readonly #routingKey: string;
  readonly #ttlMs: string;
  readonly #clock: (() => number) | undefined;
  readonly #timeoutMs: number;
  readonly #ownsClient: boolean;
  readonly #expiryOptions: ExpiryOptions;
  /** The client's kept lines (see `lineCacheBytes`); none when it is 0. */
  readonly #lineCache: LineCache | undefined;

  readonly #scopeOf: { parentBase: string; tenant: string } | undefined;

  constructor(options: RedisStoreOptions) {
    const scopedBase = (options as { [SCOPED_BASE]?: string } | undefined)?.[SCOPED_BASE];
    this.#scopeOf = (options as { [SCOPE_OF]?: { parentBase: string; tenant: string } } | undefined)?.[
      SCOPE_OF
    ];
    const o = checkOptions("RedisStore", options);
    o.exactlyOne("client", "url");
    o.object("client", { optional: true });
    o.url("url", ["redis:", "rediss:"], { optional: true });
    o.object("redisOptions", { optional: true });
    o.string("prefix", { optional: true, nonEmpty: true });
    o.integer("operationTimeoutMs", { optional: true, min: 1 });
    o.integer("lineCacheBytes", { optional: true, min: 0 });
    this.keyBase = scopedBase ?? keyBaseOf(options.prefix ?? "mem");
    this.#routingKey = routingKeyOf(this.keyBase);
    const ttl = options.ttlSeconds ?? 0;
    if (!(Number.isFinite(ttl) && ttl >= 0)) {
      throw new TypeError("RedisStore: `ttlSeconds` must be a non-negative number");
    }
    if (options.expireAfterSeconds !== undefined && ttl > 0 && ttl !== options.expireAfterSeconds) {
      throw new TypeError(
        "RedisStore: `ttlSeconds` is the old name of `expireAfterSeconds`; give one of them",
      );
    }
    const expiry = expiryOf({
      expireAfterSeconds: options.expireAfterSeconds ?? (ttl > 0 ? ttl : undefined),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    } as ExpiryOptions);
    this.#ttlMs = String(expiry ? Math.round(expiry.limitMs) : 0);
    this.#clock = options.clock;
    this.#expiryOptions = {
      ...(expiry ? { expireAfterSeconds: expiry.limitMs / 1000 } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    };
    this.#timeoutMs = options.operationTimeoutMs ?? 10_000;
    if ("client" in options) {
      const { options: own } = options.client as { options?: { keyPrefix?: unknown; redisOptions?: object } };
      refuseKeyPrefix(own, "the client's `keyPrefix` option");
      refuseKeyPrefix(own?.redisOptions, "the client's `redisOptions.keyPrefix` option");
      this.client = options.client;
      this.#ownsClient = false;
    } else {
      refuseKeyPrefix(options.redisOptions, "`redisOptions.keyPrefix`");
      const client = new Redis(options.url, { ...recommendedRedisOptions, ...options.redisOptions });
      // Failures surface per operation as StoreFailureError; without a listener ioredis would log them.
      client.on("error", (error: unknown) => {
        lastFailures.set(client, toStoreFailure(error).reason);
      });
      this.client = client;
      this.#ownsClient = true;
    }
    const lineCacheBytes = options.lineCacheBytes ?? DEFAULT_LINE_CACHE_BYTES;
    this.#lineCache = lineCacheBytes === 0 ? undefined : lineCacheOf(this.client, lineCacheBytes);
  }

  /**
   * The store of `tenant` on the same client (no new connection): keys under a hash tag of its own,
   * `{<tag>:tenant:<tenant>}`, so each tenant's keys share one slot on a Cluster and its scripts stay
   * atomic. Same expiry and timeout; closing it closes nothing. Throws `TypeError` for an invalid id.
   */
  scope(tenant: string): RedisStore {
    checkTenant(tenant);
    return new RedisStore({
      client: this.client,
      [SCOPED_BASE]: scopedKeyBase(this.keyBase, tenant),
      [SCOPE_OF]: { parentBase: this.keyBase, tenant },
      operationTimeoutMs: this.#timeoutMs,
      lineCacheBytes: this.#lineCache?.budget ?? 0,
      ...this.#expiryOptions,
    } as RedisStoreOptions);
  }

  /**
   * The tenants indexed in this store's `tn` sorted set, in byte order (see tenants.ts): one `ZRANGE`,
   * then two or three commands per tenant of the page. Files and bytes come from each tenant's counters;
   * `lastAccess` from its access times when expiry is on.
   */
  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    const { after, limit } = tenantPageOptions(options);
    try {
      await this.#connected(new AbortController().signal);
      return await listTenants(this.client, this.keyBase, after, limit, this.#ttlMs !== "0");
    } catch (error) {
      throw toStoreFailure(error);
    }
  }

  /**
   * On a scope only (a `TypeError` otherwise): puts up the erasure fence of the tenant and of its nested
   * tenants (a key in each one's slot that the script checks before every change: writes from any process
   * are refused with `ErasingError`), unlinks every key of the tenant and of its nested tenants, found by
   * `SCAN` (so it costs a pass over the keyspace), removes it from its parent's index, then the fences.
   */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    const { dryRun } = purgeOptions(options);
    const scope = this.#scopeOf;
    if (!scope) throw unscopedPurgeError();
    try {
      await this.#connected(new AbortController().signal);
      return await purgeTenant(this.client, scope.parentBase, scope.tenant, this.keyBase, dryRun);
    } catch (error) {
      throw toStoreFailure(error);
    }
  }

  /** Files and bytes from the counters the scripts keep: one round trip, O(1). */
  async usage(): Promise<Usage> {
    const reply = await this.#run("usage", []);
    const [files, bytes] = Array.isArray(reply) ? reply : [];
    return { files: Number(files ?? 0), bytes: Number(bytes ?? 0) };
  }

  /** Removes the expired files now and reports them (every operation also removes them first). */
  async sweep(): Promise<SweepResult> {
    const reply = await this.#run("sweep", []);
    const result: SweepResult = { paths: [], bytes: 0 };
    if (!Array.isArray(reply)) return result;
    for (let i = 0; i + 1 < reply.length; i += 2) {
      result.paths.push(text(reply[i]));
      result.bytes += Number(reply[i + 1]);
    }
    return result;
  }

  async read(path: string): Promise<FileData | null> {
    const reply = await this.#run("read", [path]);
    if (!Array.isArray(reply)) return null;
    const [data, version] = reply;
    if (!Buffer.isBuffer(data)) throw new StoreFailureError("unexpected reply from redis");
    return { data: new Uint8Array(data), version: text(version) };
  }

  /**
   * A `view_range` window from the file's bytes kept in this process (see `lineCacheBytes`) when the
   * server says they are still the file's, otherwise from the file read now (and kept when large).
   * One round trip either way; `undefined` (core reads the file) when it is not UTF-8 or caching is off.
   */
  async readLines(path: string, from: number, through: number): Promise<LineWindow | null | undefined> {
    const cache = this.#lineCache;
    if (!cache) return undefined;
    const key = `${this.keyBase}\u0000${path}`;
    const held = cache.get(key);
    const reply = await this.#run("readIf", [
      path,
      held?.token ?? "",
      globalThis.crypto.randomUUID(),
      String(LINE_CACHE_SMALLEST_BYTES),
    ]);
    if (!Array.isArray(reply)) return cache.window(key, held, null, from, through);
    const [kind, token, data] = reply;
    const content = text(kind) === "same" ? null : data;
    if (content !== null && !Buffer.isBuffer(content))
      throw new StoreFailureError("unexpected reply from redis");
    return cache.window(key, held, { token: text(token), content }, from, through);
  }

  async stat(path: string): Promise<Stat | null> {
    const reply = await this.#run("stat", [path]);
    if (!Array.isArray(reply)) return null;
    if (text(reply[0]) === "f") return { kind: "file", size: Number(reply[1]) };
    return { kind: "directory" };
  }

  /**
   * One script call that reads only what it shows: with `limit`, the first `limit` entries in view's
   * order from each directory's ordered index, the rest counted from the kept per-directory counts.
   */
  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    const reply = await this.#run("list", [dir, String(depth), ...listArguments(options)]);
    return Array.isArray(reply) ? listingOf(reply) : null;
  }

  /** A view in one script call: the file's bytes, or else the directory's listing. */
  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    const reply = await this.#run("view", [path, String(depth), ...listArguments(options)]);
    if (!Array.isArray(reply)) return null;
    if (text(reply[0]) === "f") {
      const [, data, version] = reply;
      if (!Buffer.isBuffer(data)) throw new StoreFailureError("unexpected reply from redis");
      return { kind: "file", file: { data: new Uint8Array(data), version: text(version) } };
    }
    const listing = reply[1];
    if (!Array.isArray(listing)) throw new StoreFailureError("unexpected reply from redis");
    return { kind: "directory", listing: listingOf(listing) };
  }

  /** Walks the directory index breadth first: one HGETALL per directory, then the sizes in one pipeline. */
  async files(): Promise<StoredFile[]> {
    await this.#connected(AbortSignal.timeout(this.#timeoutMs));
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
    return paths.map((path, i) => ({ path, size: Number(sizes[i] ?? 0) }));
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    return this.#writeWith(path, data, condition, {});
  }

  /**
   * `write` with the quotas checked inside the same script, against the counters `usage()` reads: Redis
   * runs one script at a time, so concurrent writers from any number of clients never overshoot them.
   * Refuses with `QuotaExceededError`.
   */
  async writeWithinQuota(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }> {
    return this.#writeWith(path, data, condition, quota);
  }

  async #writeWith(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }> {
    const expected = "ifVersion" in condition ? condition.ifVersion : "";
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const limits = [String(quota.maxFiles ?? ""), String(quota.maxTotalBytes ?? "")];
    const reply = await this.#run("write", [path, bytes, expected, ...limits]);
    const [status, detail, extra] = Array.isArray(reply) ? reply : [];
    switch (text(status)) {
      case "ok":
        return { version: text(detail) };
      case "quota":
        throw new QuotaExceededError(path, { files: Number(detail), bytes: Number(extra) });
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

  /**
   * Native atomic edit: read, `change`, then a write conditional on the version read, so no other write
   * lands in between. Edits of one file through one client never race each other: those that arrive
   * while one is under way wait and then go together, one read, each change applied in arrival order to
   * the result of the one before, one write (core's `updateInTurn`). A write from another process in between makes
   * the batch read again and run its changes again, after core's backoff (at most 100 times, then
   * `ConflictError`). Two round trips for one edit or for a batch of them.
   */
  update(path: string, change: (current: Uint8Array) => Uint8Array | null): Promise<boolean> {
    return updateInTurn(this.client, `${this.keyBase}\u0000${path}`, change, async (apply) => {
      for (let attempt = 0; ; attempt++) {
        const file = await this.read(path);
        if (!file) return false;
        const next = apply(file.data);
        if (!next) return true;
        try {
          await this.#writeWith(path, next, { ifVersion: file.version }, {});
          return true;
        } catch (error) {
          if (!isStoreError(error, "CONFLICT") || attempt + 1 >= UPDATE_ATTEMPTS) throw error;
        }
        await sleep(backoffDelay(attempt));
      }
    });
  }

  async delete(path: string): Promise<boolean> {
    // Integers come as strings from a client with `stringNumbers`.
    return Number(await this.#run("delete", [path])) === 1;
  }

  async rename(from: string, to: string): Promise<void> {
    const reply = await this.#run("rename", [from, to]);
    const [status, detail] = Array.isArray(reply) ? reply : [];
    const outcome = { status: text(status), detail: text(detail) };
    renameOutcome("RedisStore", from, to, outcome, "unexpected reply from redis");
  }

  /**
   * Fails fast with `StoreFailureError` when the server cannot be reached, refuses the credentials, or
   * cannot run the store's script: one script call, bounded by `operationTimeoutMs`.
   */
  async check(): Promise<void> {
    await this.#run("stat", [ROOT]);
  }

  async close(): Promise<void> {
    if (!this.#ownsClient || this.client.status === "end") return;
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

  /**
   * Runs one operation of the store's Lua code: FCALL of its function, loading the library first when
   * the server lacks it; on servers or clients without functions, EVALSHA, and EVAL once when the server
   * lacks the script (see library.ts).
   *
   * A command is handed to the client only once it is connected and only if the operation's deadline
   * has not passed; one that times out while waiting for a connection is withdrawn, so it never runs
   * after its caller was told it failed. A change that was handed over and then timed out or lost its
   * connection may have run: it fails with `mayBeApplied` (SPEC §5). A read changes nothing, so its
   * failures are always plain.
   */
  #run(op: Operation, args: Array<string | Buffer>): Promise<Reply> {
    const now = this.#clock ? String(Math.round(this.#clock())) : "";
    const client = this.client;
    const keys = [1, this.#routingKey, this.keyBase, this.#ttlMs, now, op, ...args];
    const scope = this.#scopeOf;
    // One promise, one timer and no listeners per operation: this runs for every tool command.
    return new Promise<Reply>((resolve, reject) => {
      let settled = false;
      let handedOver = false;
      let withdrawn: AbortController | undefined;
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(this.#failureOf(op, args, error, handedOver));
      };
      const send = (command: "fcall" | "evalsha" | "eval", code: string): Promise<Reply> => {
        if (settled) return Promise.reject(new StoreFailureError("timed out"));
        handedOver = true;
        // Sent as a Command of its own, not through `callBuffer`: with `enableAutoPipelining` on, ioredis
        // 5 mangles `callBuffer`'s arguments (a TypeError thrown outside any promise, or another command).
        const sent = new Command(command, [code, ...keys], { replyEncoding: null });
        client.sendCommand(sent);
        return sent.promise as Promise<Reply>;
      };
      const asScript = (): Promise<Reply> =>
        send("evalsha", STORE_SCRIPT_SHA).catch((error: unknown) => {
          if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
          return send("eval", STORE_SCRIPT);
        });
      const asFunction = (): Promise<Reply> =>
        send("fcall", STORE_FUNCTION).catch(async (error: unknown) => {
          if (!(error instanceof Error)) throw error;
          if (error.message.startsWith("ERR Function not found")) {
            if (await loadLibrary(client)) return send("fcall", STORE_FUNCTION);
          } else if (!refusesFunctions(error)) throw error;
          scriptOnly.add(client);
          return asScript();
        });
      const evaluate = () => {
        if (settled) return;
        (scriptOnly.has(client) ? asScript() : asFunction()).then((reply) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(reply);
        }, fail);
      };
      const timer = setTimeout(() => {
        withdrawn?.abort();
        fail(new StoreFailureError("timed out"));
      }, this.#timeoutMs);
      timer.unref();
      // A scope enters its parent's tenant index before it writes (see tenants.ts).
      const register = scope && op === "write" && needsRegistration(client, scope.parentBase, scope.tenant);
      if (client.status === "ready" && !register) {
        evaluate();
        return;
      }
      withdrawn = new AbortController();
      this.#connected(withdrawn.signal)
        .then(() =>
          register && !settled ? registerTenant(client, scope.parentBase, scope.tenant) : undefined,
        )
        .then(evaluate, fail);
    });
  }

  /** The error an operation fails with (see `#run`). */
  #failureOf(op: Operation, args: Array<string | Buffer>, error: unknown, handedOver: boolean): Error {
    // The script refused a change: the tenant's erasure fence is up (see store.lua).
    if (error instanceof Error && error.message.startsWith("ERASING"))
      return new ErasingError(String(args[0]));
    const failure = toStoreFailure(error);
    if (handedOver && CHANGES.has(op) && mayBeApplied(error)) {
      return new StoreFailureError(failure.reason, { cause: error, mayBeApplied: true });
    }
    return failure;
  }

  /**
   * Resolves once the client is ready. A connection attempt under way is awaited; a client that is
   * between reconnection attempts fails at once, so a dead server gives prompt errors and no command
   * waits in a queue to run after its caller was told it failed.
   */
  #connected(signal: AbortSignal): Promise<void> {
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
        return Promise.reject(new StoreFailureError(lastFailures.get(client) ?? "not connected"));
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(new StoreFailureError("timed out"));
      signal.addEventListener("abort", onAbort, { once: true });
      readyOf(client).then(
        () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
        () => {
          signal.removeEventListener("abort", onAbort);
          reject(new StoreFailureError(lastFailures.get(client) ?? "not connected"));
        },
      );
    });
  }
}
