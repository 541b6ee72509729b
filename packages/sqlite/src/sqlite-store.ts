import {
  AlreadyExistsError,
  ConflictError,
  checkOptions,
  checkTenant,
  DEFAULT_LINE_CACHE_BYTES,
  ErasingError,
  type Expiry,
  type ExpiryOptions,
  expiryOf,
  type FileData,
  type FileOrListing,
  LineCache,
  type LineWindow,
  type Listing,
  type ListOptions,
  type MemoryStore,
  NotADirectoryError,
  NotFoundError,
  type PurgeOptions,
  type PurgeResult,
  purgeOptions,
  type SearchFile,
  type SearchRequest,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  StoreFailureError,
  type SweepResult,
  type TenantPage,
  type TenantsOptions,
  tenantPageOptions,
  type Usage,
  unscopedPurgeError,
  updateInTurn,
  updateWithRetry,
  type Version,
  type WriteCondition,
} from "@mem/core";
import type Database from "better-sqlite3";
import type { ConnectionSettings } from "./batch.js";
import { Dispatcher, InlineTransport, WorkerTransport } from "./dispatch.js";
import type { Request, Results } from "./protocol.js";

export type SqliteStoreOptions = ExpiryOptions & {
  /**
   * How long a change waits for the write lock while another connection (another process, or another
   * store on the same file) holds it, before it fails. Default 30,000 ms.
   */
  busyTimeoutMs?: number;
  /**
   * Bytes of large files (64 KiB and up) kept in this process between `view_range` windows, with their
   * line offsets: the next window of an unchanged file asks the database only for its version, not its
   * bytes. Shared by the store and its scopes. `0` turns it off. Default 32 MiB.
   */
  lineCacheBytes?: number;
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

/** Attempts of an edit that keeps losing to other processes' writes, as core's own edits. */
const EDIT_ATTEMPTS = 100;

/** Marks the options of a scope: the parent's shared state rides along under this key. */
const SHARED = Symbol("SqliteStore.shared");

interface Shared {
  readonly dispatcher: Dispatcher;
  readonly expiry: Expiry | null;
  readonly path: string | undefined;
  /** The lines of large files kept between `view_range` windows (see `lineCacheBytes`); none when 0. */
  readonly lines: LineCache | undefined;
}

const checkStoreOptions = (options: unknown): void => {
  const o = checkOptions("SqliteStore", options);
  o.exactlyOne("path", "database");
  o.string("path", { optional: true, nonEmpty: true });
  o.object("database", { optional: true });
  o.integer("busyTimeoutMs", { optional: true, min: 0, max: 3_600_000 });
  o.integer("lineCacheBytes", { optional: true, min: 0 });
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
  /** Names the medium in diagnostics and telemetry (`memory.store.backend`). */
  readonly backend = "sqlite";
  readonly capabilities: StoreCapabilities = { crossProcessSafe: true, atomicDirectoryRename: true };
  /** The scope chain: `[]` for the store itself, `["a", "b"]` for `scope("a").scope("b")`. */
  readonly scopeChain: readonly string[];
  readonly #shared: Shared;
  readonly #key: string;
  readonly #owner: boolean;

  constructor(options: SqliteStoreOptions) {
    const scoped = (options as { [SHARED]?: { shared: Shared; tenants: string[] } } | undefined)?.[SHARED];
    if (scoped) {
      this.#shared = scoped.shared;
      this.scopeChain = scoped.tenants;
      this.#key = scoped.tenants.join("/");
      this.#owner = false;
      return;
    }
    checkStoreOptions(options);
    const expiry = expiryOf(options);
    const settings: ConnectionSettings = { busyTimeoutMs: options.busyTimeoutMs ?? 30_000 };
    const transport =
      "path" in options
        ? new WorkerTransport(options.path, settings)
        : new InlineTransport(options.database, settings);
    this.#shared = {
      dispatcher: new Dispatcher(transport),
      expiry,
      path: "path" in options ? options.path : undefined,
      lines:
        options.lineCacheBytes === 0
          ? undefined
          : new LineCache(options.lineCacheBytes ?? DEFAULT_LINE_CACHE_BYTES),
    };
    this.scopeChain = [];
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
    const tenants = [...this.scopeChain, checkTenant(tenant)];
    return new SqliteStore({ [SHARED]: { shared: this.#shared, tenants } } as unknown as SqliteStoreOptions);
  }

  read(path: string): Promise<FileData | null> {
    return this.#run({ op: "read", path });
  }

  /**
   * A `view_range` window from the file's lines kept in this process (see `lineCacheBytes`) when the
   * database says the file is still at their version, otherwise from the file read now (and kept when
   * large). One request either way; `undefined` (core reads the file) when it is not UTF-8 or caching is off.
   */
  async readLines(path: string, from: number, through: number): Promise<LineWindow | null | undefined> {
    const cache = this.#shared.lines;
    if (!cache) return undefined;
    const key = `${this.#key}\u0000${path}`;
    const held = cache.get(key);
    const found = await this.#run({ op: "readIf", path, known: held?.token ?? null });
    const answer = found && { token: found.version, content: found.data };
    return cache.window(key, held, answer, from, through);
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

  /**
   * An atomic edit: read, `change`, and a write conditional on the version read. Edits of one file that
   * queue up in this process (through this store or its scopes) while one is being written are applied
   * one after the other to the same bytes and stored with one write, so they never collide with each
   * other; a collision with another connection's write runs them again on the fresh file, with backoff.
   */
  update(path: string, change: (current: Uint8Array) => Uint8Array | null): Promise<boolean> {
    return updateInTurn(this.#shared, `${this.#key}\0${path}`, change, async (apply) => {
      let found = false;
      await updateWithRetry(
        this,
        path,
        (file) => {
          found = file !== null;
          return file && apply(file.data);
        },
        { attempts: EDIT_ATTEMPTS },
      );
      return found;
    });
  }

  /**
   * The direct tenants of this store that hold a file (or nested tenants that do), in byte order: a
   * loose index scan, one probe per tenant of the page (see tenants.ts), whatever the number of tenants.
   */
  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    const { after, limit } = tenantPageOptions(options);
    return this.#run({ op: "tenants", after: after ?? null, limit });
  }

  /**
   * On a scope only (a `TypeError` otherwise): fences the tenant in the database (fence.ts: every
   * process's writes to it are refused from then on), then deletes every row of this tenant and its nested
   * tenants in one transaction, with `secure_delete` on so the freed pages are zeroed, and ends the fence.
   */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    const { dryRun } = purgeOptions(options);
    if (this.scopeChain.length === 0) throw unscopedPurgeError();
    if (!dryRun) await this.#run({ op: "fence" });
    return this.#run({ op: "purge", dryRun });
  }

  /** Files and bytes of this scope, hidden files included, from its maintained totals: one row read. */
  usage(): Promise<Usage> {
    return this.#run({ op: "usage" });
  }

  /**
   * The files that may match a literal search (SPEC §9), through the FTS5 trigram index kept in every
   * write's transaction; `null` (core reads the files itself) for a regular expression or a query under
   * three characters.
   */
  search(request: SearchRequest): Promise<SearchFile[] | null> {
    if (request.needle === undefined) return Promise.resolve(null);
    return this.#run({ op: "search", path: request.path, needle: request.needle });
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
      case "erasing":
        throw new ErasingError(failure.path);
      case "failure":
        throw new StoreFailureError(failure.reason, { mayBeApplied: failure.mayBeApplied });
    }
  }
}
