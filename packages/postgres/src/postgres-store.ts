import {
  ancestorsOf,
  backoffDelay,
  ConflictError,
  checkTenant,
  DEFAULT_LINE_CACHE_BYTES,
  ErasingError,
  type FileData,
  type FileOrListing,
  isStoreError,
  LineCache,
  type LineWindow,
  type Listing,
  type ListOptions,
  type MemoryStore,
  type PurgeOptions,
  type PurgeResult,
  purgeOptions,
  ROOT,
  renameOutcome,
  type SearchFile,
  type SearchRequest,
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
import pg from "pg";
import { contentOf, rawBytes, textable } from "./content.js";
import { ERASING, RETRYABLE, sqlStateOf, toStoreFailure } from "./failure.js";
import { listingOf, listLimit } from "./listing.js";
import { ignore, isFatal, migrate } from "./migrate.js";
import { checkIdentifier, DEFAULT_SCHEMA, DEFAULT_TABLE, MAX_TABLE_LENGTH, sqlNames } from "./names.js";
import { checkOptions, type PostgresStoreOptions, ROOT_KEY, tenantKey } from "./options.js";
import { KnownDirectories, writeOutcome } from "./outcomes.js";
import { searchFiles, searchValues } from "./search.js";
import type { Shared } from "./shared.js";
import { type Statement, statements } from "./statements.js";
import {
  childPrefix,
  countStatement,
  deleteStatement,
  fenceStatement,
  lockStatement,
  prefixEnd,
  tenantPageOf,
  tenantsStatement,
} from "./tenants.js";
import { STORE_TYPES } from "./types.js";

/** Attempts of a statement that keeps hitting serialization failures or deadlocks, like core's edits. */
const MAX_ATTEMPTS = 100;

/** Marks the options of a scope: the parent's shared state and its tenant key ride along under this key. */
const SHARED = Symbol("PostgresStore.shared");

/**
 * A `MemoryStore` on PostgreSQL. Every tenant's files live in one table; each command is one statement
 * (a function call for writes and listings), atomic and safe across any number of processes and pools.
 * The table and its functions are created on first use.
 *
 * @example
 * ```ts
 * import pg from "pg";
 * import { executeCommand } from "@mem/core";
 * import { PostgresStore } from "@mem/postgres";
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const store = new PostgresStore({ pool }).scope("user-42");
 * await executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "hi\n" });
 * ```
 */
export class PostgresStore implements MemoryStore {
  readonly backend = "postgres";
  readonly capabilities: StoreCapabilities = { crossProcessSafe: true, atomicDirectoryRename: true };
  /** The tenant id this store was made for (the innermost scope); `undefined` for the unscoped store. */
  readonly tenant: string | undefined;
  /** The value of the table's `tenant` column for this store's rows (see the README's Tenants). */
  readonly tenantKey: string;
  readonly #shared: Shared;
  readonly #ownsPool: boolean;

  constructor(options: PostgresStoreOptions) {
    const scoped = (options as { [SHARED]?: { shared: Shared; key: string } })[SHARED];
    if (scoped) {
      this.#shared = scoped.shared;
      this.tenant = options.tenant;
      this.tenantKey = scoped.key;
      this.#ownsPool = false;
      return;
    }
    checkOptions(options);
    const schema = checkIdentifier("schema", options.schema ?? DEFAULT_SCHEMA, 63);
    const table = checkIdentifier("table", options.table ?? DEFAULT_TABLE, MAX_TABLE_LENGTH);
    this.tenant = options.tenant === undefined ? undefined : checkTenant(options.tenant);
    this.tenantKey = this.tenant === undefined ? ROOT_KEY : tenantKey(ROOT_KEY, this.tenant);
    let pool: pg.Pool;
    if ("pool" in options) {
      pool = options.pool;
      this.#ownsPool = false;
    } else {
      pool = new pg.Pool({
        connectionTimeoutMillis: 10_000,
        ...options.poolConfig,
        connectionString: options.connectionString,
      });
      // An idle connection the server drops is reported here; the next command reports its own failure.
      pool.on("error", () => {});
      this.#ownsPool = true;
    }
    const names = sqlNames(schema, table);
    this.#shared = {
      pool,
      names,
      sql: statements(names),
      expireAfterMs: options.expireAfterSeconds === undefined ? undefined : options.expireAfterSeconds * 1000,
      clock: options.clock ?? Date.now,
      lines: new LineCache(options.lineCacheBytes ?? DEFAULT_LINE_CACHE_BYTES),
      directories: new KnownDirectories(),
      searchIndex: options.searchIndex ?? true,
      ready: undefined,
    };
  }

  /** The pool this store runs its statements on. */
  get pool(): pg.Pool {
    return this.#shared.pool;
  }

  /**
   * The same table confined to `tenant` (SPEC §7), sharing this store's pool. Scopes nest: a scope of a
   * scope is a tenant inside it, and no store sees its tenants' files. Throws `TypeError` for an invalid
   * tenant id.
   */
  scope(tenant: string): PostgresStore {
    const key = tenantKey(this.tenantKey, checkTenant(tenant));
    const options = { pool: this.#shared.pool, tenant, [SHARED]: { shared: this.#shared, key } };
    return new PostgresStore(options);
  }

  async read(path: string): Promise<FileData | null> {
    const { sql } = this.#shared;
    const cutoff = this.#cutoff();
    const result =
      cutoff === null
        ? await this.#run(sql.read, [this.tenantKey, path], false)
        : await this.#run(sql.readTouch, [this.tenantKey, path, this.#now(), cutoff], false);
    const row = result.rows[0];
    if (!row) return null;
    return { data: contentOf(row["text"], row["content"]), version: String(row["version"]) };
  }

  /**
   * A window of a text file's lines (view with `view_range`) from its text, without turning the text into
   * bytes and back, or from the lines kept since an earlier window when the file is still at their version
   * (see `lineCacheBytes`). With expiry on, or for a file stored as bytes, `undefined`: view then reads the
   * whole file (a read that also records the access).
   */
  async readLines(path: string, from: number, through: number): Promise<LineWindow | null | undefined> {
    if (this.#cutoff() !== null) return undefined;
    const { sql, lines } = this.#shared;
    const key = `${this.tenantKey}\u0000${path}`;
    const held = lines.get(key);
    const result = await this.#run(sql.readText, [this.tenantKey, path, held?.token ?? ""], false);
    const row = result.rows[0];
    // No text for a file stored as bytes (not UTF-8, or holding NUL): core then reads it whole.
    const text = row?.["r_text"];
    const found = row && { token: String(row["r_token"]), size: Number(row["r_size"]) };
    const content = typeof text === "string" ? text : null;
    return lines.window(key, held, found ? { ...found, content } : null, from, through);
  }

  async stat(path: string): Promise<Stat | null> {
    if (path === ROOT) return { kind: "directory" };
    const { sql } = this.#shared;
    const cutoff = this.#cutoff();
    const result =
      cutoff === null
        ? await this.#run(sql.stat, [this.tenantKey, path], false)
        : await this.#run(sql.statExpiring, [this.tenantKey, path, cutoff], false);
    const row = result.rows[0];
    if (!row) return null;
    return row["r_kind"] === "f" ? { kind: "file", size: Number(row["r_size"]) } : { kind: "directory" };
  }

  /**
   * One statement: the directory's row and its entries to `depth`; with `limit`, only the first `limit`
   * entries in view's order are sent and the rest counted in `omitted`.
   */
  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    const { sql } = this.#shared;
    const cutoff = this.#cutoff();
    const values = [this.tenantKey, dir, depth, listLimit(options)];
    const result =
      cutoff === null
        ? await this.#run(sql.list, values, false)
        : await this.#run(sql.listExpiring, [...values, cutoff], false);
    return listingOf(result.rows);
  }

  /**
   * A view. Without expiry, a path not known to be a directory is first read as a file with the plain
   * `read` statement (the combined one below costs the server about 40 µs more to start, for its listing
   * part, even when it answers with a file). Otherwise one statement: the file's bytes, or else the
   * directory's listing (see `list`), in one snapshot.
   */
  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    const { sql } = this.#shared;
    const cutoff = this.#cutoff();
    const key = `${this.tenantKey}\u0000${path}`;
    if (cutoff === null && path !== ROOT && !this.#shared.directories.has(key)) {
      const file = await this.read(path);
      if (file) return { kind: "file", file };
    }
    const result =
      cutoff === null
        ? await this.#run(sql.view, [this.tenantKey, path, depth, listLimit(options)], false)
        : await this.#run(
            sql.viewExpiring,
            [this.tenantKey, path, depth, listLimit(options), this.#now(), cutoff],
            false,
          );
    const head = result.rows[0];
    if (!head) return null;
    this.#shared.directories.note(key, head["r_kind"] !== "f");
    if (head["r_kind"] === "f") {
      const data = contentOf(head["r_text"], head["r_content"]);
      return { kind: "file", file: { data, version: String(head["r_version"]) } };
    }
    const listing = listingOf(result.rows);
    return listing && { kind: "directory", listing };
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    return this.#write(path, data, condition, {});
  }

  /**
   * `write` with the quotas checked in the same statement, under the tenant's lock (its `/memories` row,
   * which every write of the tenant takes): concurrent writers from any number of processes never
   * overshoot them. Refuses with `QuotaExceededError`.
   */
  async writeWithinQuota(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }> {
    return this.#write(path, data, condition, quota);
  }

  async #write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }> {
    let expected: string | null = null;
    if ("ifVersion" in condition) {
      // Versions are this store's decimal counters; anything else cannot match.
      if (!/^[0-9]{1,18}$/.test(condition.ifVersion)) throw new ConflictError(path);
      expected = condition.ifVersion;
    }
    const values = [
      this.tenantKey,
      path,
      ancestorsOf(path),
      rawBytes(data),
      expected,
      this.#now(),
      this.#cutoff(),
      quota.maxFiles ?? null,
      quota.maxTotalBytes ?? null,
      textable(data),
    ];
    return writeOutcome(path, (await this.#run(this.#shared.sql.write, values, true, path)).rows[0]);
  }

  /**
   * An atomic edit. Stores over one pool and table take turns on a file: edits arriving while one is
   * under way go together, one read and one write (core's `updateInTurn`). First optimistically: the
   * read, then `write` conditional on the version read. When another writer came in between, it stops
   * racing: in one transaction it takes the tenant's lock (the one every write takes), reads, and writes.
   */
  update(path: string, change: (current: Uint8Array) => Uint8Array | null): Promise<boolean> {
    const { pool, names, expireAfterMs } = this.#shared;
    const key = `${names.key}\u0000${expireAfterMs ?? ""}\u0000${this.tenantKey}\u0000${path}`;
    return updateInTurn(pool, key, change, (apply) => this.#update(path, apply));
  }

  async #update(path: string, change: (current: Uint8Array) => Uint8Array | null): Promise<boolean> {
    const file = await this.read(path);
    if (!file) return false;
    const next = change(file.data);
    if (!next) return true;
    try {
      await this.#write(path, next, { ifVersion: file.version }, {});
      return true;
    } catch (error) {
      if (!isStoreError(error, "CONFLICT")) throw error;
    }
    await this.#ready();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#lockedUpdate(path, change);
      } catch (error) {
        const state = sqlStateOf(error);
        if (state === ERASING) throw new ErasingError(path);
        if (state && RETRYABLE.has(state) && attempt + 1 < MAX_ATTEMPTS) {
          await sleep(backoffDelay(attempt));
          continue;
        }
        throw toStoreFailure(error, true);
      }
    }
  }

  async #lockedUpdate(path: string, change: (current: Uint8Array) => Uint8Array | null): Promise<boolean> {
    const { sql } = this.#shared;
    return this.#withClient(async (client) => {
      await client.query("BEGIN");
      try {
        await client.query({
          name: sql.lock.name,
          text: sql.lock.text,
          values: [this.tenantKey],
          types: STORE_TYPES,
        });
        const cutoff = this.#cutoff();
        const read =
          cutoff === null
            ? { ...sql.read, values: [this.tenantKey, path], types: STORE_TYPES }
            : { ...sql.readTouch, values: [this.tenantKey, path, this.#now(), cutoff], types: STORE_TYPES };
        const row = (await client.query(read)).rows[0];
        const next = row ? change(contentOf(row["text"], row["content"])) : null;
        if (row && next) {
          const values = [
            this.tenantKey,
            path,
            ancestorsOf(path),
            rawBytes(next),
            String(row["version"]),
            this.#now(),
            cutoff,
            null,
            null,
            textable(next),
          ];
          const status = (await client.query({ ...sql.write, values, types: STORE_TYPES })).rows[0]?.[
            "r_status"
          ];
          // Under the tenant's lock nothing else writes the file: anything but ok is a broken invariant.
          if (status !== "ok") throw new StoreFailureError("unexpected reply from the database");
        }
        await client.query("COMMIT");
        return row !== undefined;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }

  async delete(path: string): Promise<boolean> {
    const result = await this.#run(
      this.#shared.sql.delete,
      [this.tenantKey, path, this.#cutoff()],
      true,
      path,
    );
    return result.rows[0]?.["deleted"] === true;
  }

  async rename(from: string, to: string): Promise<void> {
    const values = [this.tenantKey, from, to, ancestorsOf(to), this.#now(), this.#cutoff()];
    const row = (await this.#run(this.#shared.sql.rename, values, true, from)).rows[0];
    const reply = { status: row?.["r_status"] as string | undefined, detail: String(row?.["r_detail"]) };
    renameOutcome("PostgresStore", from, to, reply, "unexpected reply from the database");
  }

  /**
   * The direct tenants of this store that hold a file (or nested tenants that do), in byte order: one
   * statement per page, whose cost grows with the page, not with the number of tenants (see tenants.ts).
   * `files` and `bytes` are the tenant's totals (with expiry, expired files count until reclaimed);
   * `lastAccess` its newest file access.
   */
  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    const { after, limit } = tenantPageOptions(options);
    const prefix = childPrefix(this.tenantKey);
    const start = after === undefined ? prefix : `${prefix}${after}`;
    const result = await this.#run(
      tenantsStatement(this.#shared.names),
      [prefix, prefixEnd(prefix), start, limit + 1, after ?? ""],
      false,
    );
    return tenantPageOf(result.rows, limit);
  }

  /**
   * On a scope only (a `TypeError` otherwise): puts the tenant's erasure fence up (a row every write of
   * the tenant, from any process, checks under the tenant's lock, and is refused with `ErasingError`),
   * then deletes every row of this tenant and of its nested tenants, the fence among them, in one
   * transaction, after taking the tenant's writer lock, so every write that finished before the call is
   * gone and none interleaves. A purge interrupted after the fence leaves it up; running it again erases
   * the tenant and lowers it.
   */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    const { dryRun } = purgeOptions(options);
    if (this.tenantKey === ROOT_KEY) throw unscopedPurgeError();
    await this.#ready();
    const names = this.#shared.names;
    const prefix = childPrefix(this.tenantKey);
    const values = [this.tenantKey, prefix, prefixEnd(prefix)];
    try {
      const row = await this.#withClient(async (client) => {
        if (!dryRun)
          await client.query({ ...fenceStatement(names), values: [this.tenantKey], types: STORE_TYPES });
        await client.query("BEGIN");
        try {
          if (!dryRun)
            await client.query({ ...lockStatement(names), values: [this.tenantKey], types: STORE_TYPES });
          const statement = dryRun ? countStatement(names) : deleteStatement(names);
          const result = (await client.query({ ...statement, values, types: STORE_TYPES })).rows[0];
          await client.query("COMMIT");
          return result;
        } catch (error) {
          await client.query("ROLLBACK").catch(ignore);
          throw error;
        }
      });
      return { files: Number(row?.["r_files"] ?? 0), bytes: Number(row?.["r_bytes"] ?? 0) };
    } catch (error) {
      throw isStoreError(error) ? error : toStoreFailure(error, !dryRun);
    }
  }

  /** Files and bytes of this tenant, hidden files included, from its maintained totals: one row read. */
  async usage(): Promise<Usage> {
    const { sql } = this.#shared;
    const cutoff = this.#cutoff();
    const result =
      cutoff === null
        ? await this.#run(sql.usage, [this.tenantKey], false)
        : await this.#run(sql.usageExpiring, [this.tenantKey, cutoff], false);
    const row = result.rows[0];
    return { files: Number(row?.["r_files"] ?? 0), bytes: Number(row?.["r_bytes"] ?? 0) };
  }

  /**
   * The files that may match a literal search of three characters or more (SPEC §9), in one statement
   * through the `pg_trgm` index; `null` (core reads the files itself) for anything else.
   */
  async search(request: SearchRequest): Promise<SearchFile[] | null> {
    const values = searchValues(request, this.#cutoff());
    if (!values) return null;
    return searchFiles((await this.#run(this.#shared.sql.search, [this.tenantKey, ...values], false)).rows);
  }

  /** Every live file of this tenant with its size, hidden ones included, in one statement. */
  async files(): Promise<StoredFile[]> {
    const result = await this.#run(this.#shared.sql.files, [this.tenantKey, this.#cutoff()], false);
    return result.rows.map((row) => ({ path: String(row["r_path"]), size: Number(row["r_size"]) }));
  }

  /** Removes this tenant's expired files (none without `expireAfterSeconds`) and reports them. */
  async sweep(): Promise<SweepResult> {
    const cutoff = this.#cutoff();
    if (cutoff === null) return { paths: [], bytes: 0 };
    const result = await this.#run(this.#shared.sql.sweep, [this.tenantKey, cutoff], true);
    const paths = result.rows.map((row) => row["r_path"] as string).sort();
    const bytes = result.rows.reduce((sum, row) => sum + Number(row["r_size"]), 0);
    return { paths, bytes };
  }

  /**
   * Connects, creates or checks the table and its functions, and reads the schema version: fails with
   * `StoreFailureError` (a safe reason) when the database cannot be used.
   */
  async check(): Promise<void> {
    await this.#run(this.#shared.sql.version, [], false);
  }

  /** Ends the pool when the store created it (`connectionString`); a scope or a given pool stays open. */
  async close(): Promise<void> {
    if (this.#ownsPool && !this.#shared.pool.ended) await this.#shared.pool.end();
  }

  #now(): number {
    return Math.floor(this.#shared.clock());
  }

  /** Files last accessed before this instant have expired; `null` without expiry. */
  #cutoff(): number | null {
    const { expireAfterMs } = this.#shared;
    return expireAfterMs === undefined ? null : this.#now() - Math.round(expireAfterMs);
  }

  /** Runs one statement (after the schema is ready), retrying serialization failures and deadlocks. */
  async #run(
    statement: Statement,
    values: unknown[],
    changes: boolean,
    path?: string,
  ): Promise<pg.QueryResult> {
    await this.#ready();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once(statement, values, changes);
      } catch (error) {
        const state = sqlStateOf(error);
        if (state === ERASING && path !== undefined) throw new ErasingError(path);
        if (state && RETRYABLE.has(state) && attempt + 1 < MAX_ATTEMPTS) {
          await sleep(backoffDelay(attempt));
          continue;
        }
        throw toStoreFailure(error, false);
      }
    }
  }

  async #once(statement: Statement, values: unknown[], changes: boolean): Promise<pg.QueryResult> {
    try {
      return await this.#withClient((client) =>
        client.query({ name: statement.name, text: statement.text, values, types: STORE_TYPES }),
      );
    } catch (error) {
      if (isStoreError(error)) throw error;
      if (sqlStateOf(error) === ERASING) throw error;
      if (sqlStateOf(error) && RETRYABLE.has(sqlStateOf(error)!)) throw error;
      throw toStoreFailure(error, changes);
    }
  }

  /**
   * Runs `work` on a connection of the pool. A failure to connect is a store failure that changed
   * nothing; what `work` throws is passed on as it is, after the connection went back to the pool, or
   * was closed when the server did not answer on it.
   */
  async #withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#shared.pool.connect();
    } catch (error) {
      throw toStoreFailure(error, false);
    }
    // A connection lost while checked out is also emitted on the client, where no pool listener is.
    client.on("error", ignore);
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (sqlStateOf(error) === undefined || isFatal(error)) broken = error as Error;
      throw error;
    } finally {
      client.off("error", ignore);
      client.release(broken);
    }
  }

  /** Creates or upgrades the table on first use; shared by the store and its scopes, retried after a failure. */
  #ready(): Promise<void> {
    const shared = this.#shared;
    shared.ready ??= migrate(shared.pool, shared.names, shared.searchIndex).catch((error: unknown) => {
      shared.ready = undefined;
      throw toStoreFailure(error, false);
    });
    return shared.ready;
  }
}
