import {
  AlreadyExistsError,
  ConflictError,
  checkOptions,
  checkTenant,
  type Expiry,
  type ExpiryOptions,
  expiryOf,
  type FileData,
  type FileOrListing,
  type Listing,
  type ListOptions,
  type MemoryStore,
  NotADirectoryError,
  NotFoundError,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  StoreFailureError,
  type SweepResult,
  type Usage,
  type Version,
  type WriteCondition,
} from "@mem/core";
import type Database from "better-sqlite3";
import type { ConnectionSettings } from "./batch.js";
import { Dispatcher, InlineTransport, WorkerTransport } from "./dispatch.js";
import type { Request, Results } from "./protocol.js";

export type SqliteStoreOptions = ExpiryOptions & {
  /**
   * How long one attempt at the write lock waits for another connection (another process, or another
   * store on the same file) before trying again. Default 5,000 ms; a change fails after 6 attempts.
   */
  busyTimeoutMs?: number;
} & (
    | {
        /** The database file, created when missing. The store runs it on a thread of its own. */
        path: string;
      }
    | {
        /**
         * The application's open better-sqlite3 database. The store switches it to WAL with
         * `synchronous = FULL`, runs its statements on the calling thread, and never closes it.
         */
        database: Database.Database;
      }
  );

/** Attempts at the write lock, each waiting up to `busyTimeoutMs`. */
const LOCK_ATTEMPTS = 6;

/** Marks the options of a scope: the parent's shared state rides along under this key. */
const SHARED = Symbol("SqliteStore.shared");

interface Shared {
  readonly dispatcher: Dispatcher;
  readonly expiry: Expiry | null;
  readonly path: string | undefined;
}

const checkStoreOptions = (options: unknown): void => {
  const o = checkOptions("SqliteStore", options);
  o.exactlyOne("path", "database");
  o.string("path", { optional: true, nonEmpty: true });
  o.object("database", { optional: true });
  o.integer("busyTimeoutMs", { optional: true, min: 0, max: 3_600_000 });
  const database = (options as { database?: { prepare?: unknown } }).database;
  if (database !== undefined && typeof database.prepare !== "function") {
    throw new TypeError('SqliteStore: option "database" must be an open better-sqlite3 Database');
  }
};

/**
 * A `MemoryStore` in one SQLite file: every tenant in one table, WAL with a full fsync per commit, and
 * the changes that arrive together committed together. Safe across threads and processes (SQLite's own
 * locks); opened by path, it runs SQLite on a worker thread so the event loop never waits for a disk.
 *
 * @example
 * ```ts
 * import { executeCommand } from "@mem/core";
 * import { SqliteStore } from "@mem/sqlite";
 * const store = new SqliteStore({ path: "./memory.db" }).scope("user-42");
 * await executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "hi\n" });
 * ```
 */
export class SqliteStore implements MemoryStore {
  readonly capabilities: StoreCapabilities = { crossProcessSafe: true, atomicDirectoryRename: true };
  /** The scope chain: `[]` for the store itself, `["a", "b"]` for `scope("a").scope("b")`. */
  readonly tenants: readonly string[];
  readonly #shared: Shared;
  readonly #key: string;
  readonly #owner: boolean;

  constructor(options: SqliteStoreOptions) {
    const scoped = (options as { [SHARED]?: { shared: Shared; tenants: string[] } })[SHARED];
    if (scoped) {
      this.#shared = scoped.shared;
      this.tenants = scoped.tenants;
      this.#key = scoped.tenants.join("/");
      this.#owner = false;
      return;
    }
    checkStoreOptions(options);
    const expiry = expiryOf(options);
    const settings: ConnectionSettings = {
      busyTimeoutMs: options.busyTimeoutMs ?? 5_000,
      lockAttempts: LOCK_ATTEMPTS,
    };
    const transport =
      "path" in options
        ? new WorkerTransport(options.path, settings)
        : new InlineTransport(options.database, settings);
    this.#shared = {
      dispatcher: new Dispatcher(transport),
      expiry,
      path: "path" in options ? options.path : undefined,
    };
    this.tenants = [];
    this.#key = "";
    this.#owner = true;
  }

  /** The database file this store opened (`undefined` for a store given an open database). */
  get path(): string | undefined {
    return this.#shared.path;
  }

  /**
   * The same database confined to `tenant` (SPEC §7), sharing this store's connection. Scopes nest:
   * `scope("a").scope("b")` is a tenant of its own, and no store sees its scopes' files.
   */
  scope(tenant: string): SqliteStore {
    const tenants = [...this.tenants, checkTenant(tenant)];
    return new SqliteStore({ [SHARED]: { shared: this.#shared, tenants } } as unknown as SqliteStoreOptions);
  }

  read(path: string): Promise<FileData | null> {
    return this.#run({ op: "read", path });
  }

  stat(path: string): Promise<Stat | null> {
    return this.#run({ op: "stat", path });
  }

  list(dir: string, depth: number, options: ListOptions = {}): Promise<Listing | null> {
    return this.#run({
      op: "list",
      path: dir,
      depth,
      limit: options.limit ?? null,
      countFiles: options.countFiles === true,
    });
  }

  readOrList(path: string, depth: number, options: ListOptions = {}): Promise<FileOrListing | null> {
    return this.#run({
      op: "readOrList",
      path,
      depth,
      limit: options.limit ?? null,
      countFiles: options.countFiles === true,
    });
  }

  write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    const ifVersion = "ifVersion" in condition ? condition.ifVersion : null;
    return this.#run({ op: "write", path, data, ifVersion });
  }

  delete(path: string): Promise<boolean> {
    return this.#run({ op: "delete", path });
  }

  rename(from: string, to: string): Promise<void> {
    return this.#run({ op: "rename", path: from, to });
  }

  /** Files and bytes of this scope, hidden files included, from its maintained totals: one row read. */
  usage(): Promise<Usage> {
    return this.#run({ op: "usage" });
  }

  /** Every live file of this scope with its size, hidden ones included. */
  files(): Promise<StoredFile[]> {
    return this.#run({ op: "files" });
  }

  /** Removes this scope's expired files (none without `expireAfterSeconds`) and reports them. */
  sweep(): Promise<SweepResult> {
    return this.#run({ op: "sweep" });
  }

  /** Opens the database, creates or checks the schema and reads its version. */
  async check(): Promise<void> {
    await this.#run({ op: "check" });
  }

  /**
   * Stops the database thread and closes the connection the store opened; a scope, or a store given an
   * open database, closes nothing.
   */
  async close(): Promise<void> {
    if (this.#owner) await this.#shared.dispatcher.close();
  }

  async #run<R extends Request["op"]>(
    request: { op: R } & Omit<Extract<Request, { op: R }>, "tenant" | "now" | "cutoff">,
  ): Promise<Results[R]> {
    const { expiry } = this.#shared;
    const now = expiry ? expiry.now() : Date.now();
    const full = {
      ...request,
      tenant: this.#key,
      now,
      cutoff: expiry ? now - expiry.limitMs : null,
    } as Request;
    const reply = await this.#shared.dispatcher.run(full);
    if (reply.ok) return reply.value as Results[R];
    const failure = reply.failure;
    switch (failure.type) {
      case "exists":
        throw new AlreadyExistsError(failure.path);
      case "notdir":
        throw new NotADirectoryError(failure.path, failure.ancestor);
      case "conflict":
        throw new ConflictError(failure.path);
      case "notfound":
        throw new NotFoundError(failure.path);
      case "inside":
        // Callers (core's rename) rule this out before calling; reaching it is a usage error.
        throw new RangeError(`SqliteStore.rename: cannot move ${failure.path} into itself`);
      case "failure":
        throw new StoreFailureError(failure.reason, { mayBeApplied: failure.mayBeApplied });
    }
  }
}
