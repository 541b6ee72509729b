/**
 * Every tenant in one D1 database. Each store method is one `batch` (one round trip, one transaction):
 * the write and its preconditions are one conditional statement, and the reads that explain a refusal
 * ride in the same batch. So a create, delete, rename or view costs one round trip, and an edit two (core
 * reads, then writes on the version it read).
 */
import {
  AlreadyExistsError,
  ancestorsOf,
  ConflictError,
  checkOptions,
  checkTenant,
  ErasingError,
  type ExpiryOptions,
  expiryOf,
  type FileData,
  type FileOrListing,
  type Listing,
  type ListOptions,
  type MemoryStore,
  NotADirectoryError,
  NotFoundError,
  type PurgeOptions,
  type PurgeResult,
  purgeOptions,
  QuotaExceededError,
  ROOT,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  type SweepResult,
  type TenantPage,
  type TenantsOptions,
  tenantPage,
  tenantPageOptions,
  type Usage,
  unscopedPurgeError,
  type Version,
  type WriteCondition,
  type WriteQuota,
} from "@mem/core";
import { createTables, type D1Like, type D1Statement } from "./d1-migrate.js";
import { countable, fileColumns, HEAD_SQL, LISTING_SQL, listingOf, renameColumns } from "./d1-tree.js";
import { missingBinding, toStoreFailure } from "./failure.js";
import { below, bytesOf } from "./rows.js";

type Row = Record<string, unknown>;

export type D1StoreOptions = ExpiryOptions;

const isD1 = (value: unknown): value is D1Like =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as D1Like).prepare === "function" &&
  typeof (value as D1Like).batch === "function";

/** The ancestors of `path` below `/memories`, as one JSON parameter (D1 caps bound parameters at 100). */
const ancestorsJson = (path: string): string => JSON.stringify(ancestorsOf(path).filter((a) => a !== ROOT));

/**
 * The condition that no purge fences the tenant or a tenant it is nested in (`param`: the JSON list of
 * the scope chain's prefixes). Every change has it in its own conditional statement.
 */
const FENCED = (param: string): string =>
  `NOT EXISTS (SELECT 1 FROM mem_fences WHERE tenant IN (SELECT value FROM json_each(${param})))`;

/** The state shared by a store and its scopes: the binding. */
interface Shared {
  readonly db: unknown;
}

/**
 * The tables' creation, once per binding in an isolate: a Worker that makes a `D1Store` per request
 * pays the round trip once, not per request.
 */
const created = new WeakMap<object, Promise<void>>();

/**
 * A `MemoryStore` on a D1 database, every tenant in the same tables. A missing binding or a D1 error is
 * no exception out of the tool: commands answer SPEC's failure result naming D1.
 *
 * @example
 * ```ts
 * import { executeCommand } from "@mem/core";
 * import { D1Store } from "@mem/cloudflare";
 *
 * declare const env: { DB: D1Database };
 * const store = new D1Store(env.DB).scope("user-42");
 * await executeCommand(store, { command: "view", path: "/memories" }); // one round trip
 * ```
 */
export class D1Store implements MemoryStore {
  readonly backend = "d1";
  readonly capabilities: StoreCapabilities = { crossProcessSafe: true, atomicDirectoryRename: true };
  readonly #shared: Shared;
  readonly #options: D1StoreOptions;
  /** The scope chain: `""` unscoped, `a/b` for `scope("a").scope("b")` (ids never hold `/`). */
  readonly #tenant: string;
  /** JSON of the chain's prefixes (`["a", "a/b"]` for `a/b`): the tenants whose fence stops this one's changes. */
  readonly #chain: string;
  readonly #clock: () => number;
  readonly #expiryMs: number | null;
  readonly #scopes = new Map<string, D1Store>();

  constructor(db: unknown, options: D1StoreOptions = {}) {
    checkOptions("D1Store", options);
    const expiry = expiryOf(options);
    this.#shared = ScopeOf.current?.shared ?? { db };
    this.#tenant = ScopeOf.current?.tenant ?? "";
    const levels = this.#tenant === "" ? [] : this.#tenant.split("/");
    this.#chain = JSON.stringify(levels.map((_, i) => levels.slice(0, i + 1).join("/")));
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#expiryMs = expiry ? expiry.limitMs : null;
  }

  #db(): D1Like {
    if (!isD1(this.#shared.db)) throw missingBinding("D1");
    return this.#shared.db;
  }

  /**
   * Creates the tables once per binding (one round trip the first time a store uses it; a database of
   * schema 1 is migrated first, see d1-migrate.ts).
   */
  #ready(db: D1Like): Promise<void> {
    let ready = created.get(db);
    if (!ready) {
      ready = createTables(db).catch((error: unknown) => {
        created.delete(db);
        throw error;
      });
      created.set(db, ready);
    }
    return ready;
  }

  /**
   * Runs `statements` as one batch (one round trip, one transaction), after the statement that reclaims
   * expired files when expiry is on, and returns each statement's rows.
   */
  async #batch(
    build: (sql: (query: string, ...values: unknown[]) => D1Statement) => D1Statement[],
    changes: boolean,
  ): Promise<Row[][]> {
    let db: D1Like;
    try {
      db = this.#db();
      await this.#ready(db);
    } catch (error) {
      throw toStoreFailure(error, "D1");
    }
    const sql = (query: string, ...values: unknown[]) => db.prepare(query).bind(...values);
    const statements = build(sql);
    const cutoff = this.#cutoff();
    const reclaim =
      cutoff === null
        ? []
        : [sql("DELETE FROM mem_files WHERE tenant = ? AND accessed_at < ?", this.#tenant, cutoff)];
    try {
      const results = await db.batch([...reclaim, ...statements]);
      return results.slice(reclaim.length).map((result) => (result.results ?? []) as Row[]);
    } catch (error) {
      throw toStoreFailure(error, "D1", changes);
    }
  }

  #cutoff(): number | null {
    return this.#expiryMs === null ? null : this.#clock() - this.#expiryMs;
  }

  /** Statements that mark a file accessed (SPEC §7), when expiry is on. */
  #touch(sql: (query: string, ...values: unknown[]) => D1Statement, path: string): D1Statement[] {
    return this.#expiryMs === null
      ? []
      : [
          sql(
            "UPDATE mem_files SET accessed_at = ? WHERE tenant = ? AND path = ?",
            this.#clock(),
            this.#tenant,
            path,
          ),
        ];
  }

  async read(path: string): Promise<FileData | null> {
    const [rows] = await this.#batch(
      (sql) => [
        sql("SELECT content, version FROM mem_files WHERE tenant = ? AND path = ?", this.#tenant, path),
        ...this.#touch(sql, path),
      ],
      false,
    );
    const row = rows?.[0];
    return row ? { data: bytesOf(row.content), version: String(row.version) } : null;
  }

  async stat(path: string): Promise<Stat | null> {
    if (path === ROOT) return { kind: "directory" };
    const [from, to] = below(path);
    const [rows] = await this.#batch(
      (sql) => [
        sql(
          `SELECT (SELECT size FROM mem_files WHERE tenant = ?1 AND path = ?2) AS size,
             EXISTS (SELECT 1 FROM mem_files WHERE tenant = ?1 AND path > ?3 AND path < ?4) AS dir`,
          this.#tenant,
          path,
          from,
          to,
        ),
      ],
      false,
    );
    const row = rows?.[0];
    if (row && row.size !== null && row.size !== undefined) return { kind: "file", size: row.size as number };
    return row?.dir ? { kind: "directory" } : null;
  }

  /** The head row and the walk of `dir`'s listing (d1-tree.ts): two statements of the command's batch. */
  #listing(
    sql: (query: string, ...values: unknown[]) => D1Statement,
    dir: string,
    depth: number,
    options: ListOptions | undefined,
  ): D1Statement[] {
    const limit = options?.limit !== undefined && countable(depth) ? options.limit : -1;
    return [sql(HEAD_SQL, this.#tenant, dir), sql(LISTING_SQL, this.#tenant, dir, limit, depth)];
  }

  #toListing(dir: string, rows: Row[][], depth: number, options?: ListOptions): Listing | null {
    const limit = options?.limit !== undefined && countable(depth) ? options.limit : undefined;
    return listingOf(dir, rows[0]?.[0], rows[1] ?? [], depth, limit, options?.countFiles === true);
  }

  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    const rows = await this.#batch((sql) => this.#listing(sql, dir, depth, options), false);
    return this.#toListing(dir, rows, depth, options);
  }

  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    const [file, ...listing] = await this.#batch(
      (sql) => [
        sql("SELECT content, version FROM mem_files WHERE tenant = ? AND path = ?", this.#tenant, path),
        ...this.#listing(sql, path, depth, options),
        ...this.#touch(sql, path),
      ],
      false,
    );
    const row = file?.[0];
    if (row) return { kind: "file", file: { data: bytesOf(row.content), version: String(row.version) } };
    const found = this.#toListing(path, listing, depth, options);
    return found ? { kind: "directory", listing: found } : null;
  }

  write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    return this.#write(path, data, condition, undefined);
  }

  writeWithinQuota(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }> {
    return this.#write(path, data, condition, quota);
  }

  /**
   * One batch: bump the version counter, the conditional INSERT (create) or UPDATE (replace) with every
   * precondition and the quota in its WHERE, the tenant's registration, then the reads that say why
   * nothing was written.
   */
  async #write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota | undefined,
  ): Promise<{ version: Version }> {
    const tenant = this.#tenant;
    const [from, to] = below(path);
    const now = this.#clock();
    const size = data.byteLength;
    const maxFiles = quota?.maxFiles ?? null;
    const maxBytes = quota?.maxTotalBytes ?? null;
    const create = "ifAbsent" in condition;
    const usage = "(SELECT count(*) FROM mem_files WHERE tenant = ?1)";
    const bytes = "(SELECT coalesce(sum(size), 0) FROM mem_files WHERE tenant = ?1)";
    const results = await this.#batch(
      (sql) => [
        sql("UPDATE mem_meta SET value = value + 1 WHERE key = 'versions'"),
        create
          ? sql(
              `INSERT INTO mem_files (tenant, path, content, version, size, accessed_at, parent, sort, listed, hid, ancestors)
               SELECT ?1, ?2, ?3, (SELECT value FROM mem_meta WHERE key = 'versions'), ?4, ?5, ?11, ?12, ?13, ?14, ?15
               WHERE NOT EXISTS (SELECT 1 FROM mem_files WHERE tenant = ?1 AND (path = ?2 OR (path > ?6 AND path < ?7)))
                 AND NOT EXISTS (SELECT 1 FROM mem_files WHERE tenant = ?1 AND path IN (SELECT value FROM json_each(?8)))
                 AND (?9 IS NULL OR ${usage} + 1 <= ?9)
                 AND (?10 IS NULL OR ${bytes} + ?4 <= ?10)
                 AND ${FENCED("?16")}
               RETURNING version`,
              tenant,
              path,
              data,
              size,
              now,
              from,
              to,
              ancestorsJson(path),
              maxFiles,
              maxBytes,
              ...fileColumns(path),
              this.#chain,
            )
          : sql(
              `UPDATE mem_files SET content = ?3, version = (SELECT value FROM mem_meta WHERE key = 'versions'),
                 size = ?4, accessed_at = ?5
               WHERE tenant = ?1 AND path = ?2 AND version = ?6
                 AND (?7 IS NULL OR ?4 <= size OR ${bytes} - size + ?4 <= ?7)
                 AND ${FENCED("?8")}
               RETURNING version`,
              tenant,
              path,
              data,
              size,
              now,
              Number(condition.ifVersion),
              maxBytes,
              this.#chain,
            ),
        ...this.#register(sql),
        sql(
          `SELECT (SELECT version FROM mem_files WHERE tenant = ?1 AND path = ?2) AS version,
             EXISTS (SELECT 1 FROM mem_files WHERE tenant = ?1 AND path > ?3 AND path < ?4) AS dir,
             (SELECT path FROM mem_files WHERE tenant = ?1 AND path IN (SELECT value FROM json_each(?5))
              ORDER BY length(path) LIMIT 1) AS ancestor,
             ${usage} AS files, ${bytes} AS bytes, NOT ${FENCED("?6")} AS fenced`,
          tenant,
          path,
          from,
          to,
          ancestorsJson(path),
          this.#chain,
        ),
      ],
      true,
    );
    const written = results[1]?.[0];
    if (written) return { version: String(written.version) };
    const why = results[results.length - 1]?.[0] ?? {};
    if (why.fenced) throw new ErasingError(path);
    if (create) {
      if ((why.version !== null && why.version !== undefined) || why.dir) throw new AlreadyExistsError(path);
    } else if (
      why.version === null ||
      why.version === undefined ||
      String(why.version) !== condition.ifVersion
    ) {
      throw new ConflictError(path);
    }
    if (typeof why.ancestor === "string") throw new NotADirectoryError(path, why.ancestor);
    throw new QuotaExceededError(path, { files: why.files as number, bytes: why.bytes as number });
  }

  /** Statements that list this scope (and each scope above it) with its parent, once it holds a file. */
  #register(sql: (query: string, ...values: unknown[]) => D1Statement): D1Statement[] {
    if (this.#tenant === "") return [];
    const levels = this.#tenant.split("/");
    return levels.map((id, i) => {
      const parent = levels.slice(0, i).join("/");
      const chain = levels.slice(0, i + 1).join("/");
      const [from, to] = below(chain);
      return sql(
        `INSERT OR IGNORE INTO mem_tenants (parent, id) SELECT ?1, ?2
         WHERE EXISTS (SELECT 1 FROM mem_files WHERE tenant = ?3 OR (tenant > ?4 AND tenant < ?5))`,
        parent,
        id,
        chain,
        from,
        to,
      );
    });
  }

  async delete(path: string): Promise<boolean> {
    if (path === ROOT) return false;
    const [from, to] = below(path);
    const [rows, why] = await this.#batch(
      (sql) => [
        sql(
          `DELETE FROM mem_files WHERE tenant = ?1 AND (path = ?2 OR (path > ?3 AND path < ?4)) AND ${FENCED("?5")}
           RETURNING path`,
          this.#tenant,
          path,
          from,
          to,
          this.#chain,
        ),
        sql(`SELECT NOT ${FENCED("?1")} AS fenced`, this.#chain),
      ],
      true,
    );
    if (why?.[0]?.fenced) throw new ErasingError(path);
    return (rows?.length ?? 0) > 0;
  }

  /**
   * One batch: the preconditions are evaluated once into `mem_guard`, then the moving UPDATE runs only
   * when they held (so rows it has already moved cannot change its own check), then the reads that say
   * which precondition failed.
   */
  async rename(from: string, to: string): Promise<void> {
    const tenant = this.#tenant;
    const [fromLow, fromHigh] = below(from);
    const [toLow, toHigh] = below(to);
    const exists =
      "EXISTS (SELECT 1 FROM mem_files WHERE tenant = ?1 AND (path = ?2 OR (path > ?3 AND path < ?4)))";
    const taken =
      "EXISTS (SELECT 1 FROM mem_files WHERE tenant = ?1 AND (path = ?5 OR (path > ?6 AND path < ?7)))";
    const blocked =
      "EXISTS (SELECT 1 FROM mem_files WHERE tenant = ?1 AND path IN (SELECT value FROM json_each(?8)))";
    const args = [tenant, from, fromLow, fromHigh, to, toLow, toHigh, ancestorsJson(to), this.#chain];
    const results = await this.#batch(
      (sql) => [
        sql(
          `INSERT OR REPLACE INTO mem_guard (tenant, ok)
           VALUES (?1, ${exists} AND NOT ${taken} AND NOT ${blocked} AND ${FENCED("?9")})`,
          ...args,
        ),
        sql(
          // SET reads the row as it was: \`path = ?2\` picks the renamed file itself, the rest moved beneath.
          `UPDATE mem_files SET path = ?5 || substr(path, length(?2) + 1), accessed_at = ?10,
             parent = CASE WHEN path = ?2 THEN ?11 ELSE ?5 || substr(parent, length(?2) + 1) END,
             sort = CASE WHEN path = ?2 THEN ?12 ELSE sort END,
             listed = CASE WHEN path = ?2 THEN ?13 ELSE listed END,
             hid = CASE WHEN hid > ?17 THEN hid - ?17 + ?18 ELSE ?14 END,
             ancestors = CASE WHEN path = ?2 THEN ?15 ELSE (
               SELECT CASE WHEN tail = '[]' THEN ?16 ELSE substr(?16, 1, length(?16) - 1) || ',' || substr(tail, 2) END
               FROM (SELECT json_group_array(json_array(?5 || substr(json_extract(a.value, '$[0]'), length(?2) + 1),
                       json_extract(a.value, '$[1]'), json_extract(a.value, '$[2]'))) AS tail
                     FROM json_each(mem_files.ancestors) a WHERE a.key > ?17)) END
           WHERE tenant = ?1 AND (path = ?2 OR (path > ?3 AND path < ?4))
             AND (SELECT ok FROM mem_guard WHERE tenant = ?1) = 1`,
          ...args,
          this.#clock(),
          ...renameColumns(from, to),
        ),
        sql(
          `SELECT ${exists} AS present, ${taken} AS taken,
             (SELECT path FROM mem_files WHERE tenant = ?1 AND path IN (SELECT value FROM json_each(?8))
              ORDER BY length(path) LIMIT 1) AS ancestor,
             (SELECT ok FROM mem_guard WHERE tenant = ?1) AS ok, NOT ${FENCED("?9")} AS fenced`,
          ...args,
        ),
        sql("DELETE FROM mem_guard WHERE tenant = ?", tenant),
      ],
      true,
    );
    const why = results[2]?.[0] ?? {};
    if (why.ok === 1) return;
    if (why.fenced) throw new ErasingError(from);
    if (!why.present) throw new NotFoundError(from);
    if (why.taken) throw new AlreadyExistsError(to);
    if (typeof why.ancestor === "string") throw new NotADirectoryError(to, why.ancestor);
  }

  async usage(): Promise<Usage> {
    const [rows] = await this.#batch(
      (sql) => [
        sql(
          "SELECT count(*) AS files, coalesce(sum(size), 0) AS bytes FROM mem_files WHERE tenant = ?",
          this.#tenant,
        ),
      ],
      false,
    );
    return { files: (rows?.[0]?.files as number) ?? 0, bytes: (rows?.[0]?.bytes as number) ?? 0 };
  }

  async files(): Promise<StoredFile[]> {
    const [rows] = await this.#batch(
      (sql) => [sql("SELECT path, size FROM mem_files WHERE tenant = ? ORDER BY path", this.#tenant)],
      false,
    );
    return (rows ?? []).map((row) => ({ path: row.path as string, size: row.size as number }));
  }

  async sweep(): Promise<SweepResult> {
    const cutoff = this.#cutoff();
    if (cutoff === null) return { paths: [], bytes: 0 };
    let db: D1Like;
    try {
      db = this.#db();
      await this.#ready(db);
      const [result] = await db.batch([
        db
          .prepare("DELETE FROM mem_files WHERE tenant = ? AND accessed_at < ? RETURNING path, size")
          .bind(this.#tenant, cutoff),
      ]);
      const rows = (result?.results ?? []) as Row[];
      return {
        paths: rows.map((row) => row.path as string).sort(),
        bytes: rows.reduce((sum, row) => sum + (row.size as number), 0),
      };
    } catch (error) {
      throw toStoreFailure(error, "D1", true);
    }
  }

  scope(tenant: string): D1Store {
    checkTenant(tenant);
    let scoped = this.#scopes.get(tenant);
    if (!scoped) {
      ScopeOf.current = {
        shared: this.#shared,
        tenant: this.#tenant === "" ? tenant : `${this.#tenant}/${tenant}`,
      };
      try {
        scoped = new D1Store(this.#shared.db, this.#options);
      } finally {
        ScopeOf.current = undefined;
      }
      this.#scopes.set(tenant, scoped);
    }
    return scoped;
  }

  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    const { after, limit } = tenantPageOptions(options);
    const [rows] = await this.#batch(
      (sql) => [
        sql(
          "SELECT id FROM mem_tenants WHERE parent = ? AND id > ? ORDER BY id LIMIT ?",
          this.#tenant,
          after ?? "",
          limit + 1,
        ),
      ],
      false,
    );
    return tenantPage(
      (rows ?? []).map((row) => ({ id: row.id as string })),
      limit,
    );
  }

  /**
   * Unless `dryRun`, first puts up the tenant's fence (one batch of its own, so every change of the
   * tenant or a nested one that comes after it is refused with `ErasingError`), then one batch: counts,
   * deletes the tenant's files, directories, nested tenants and registrations, and takes the fences down.
   * A purge interrupted between the two leaves the fence up until it is run again.
   */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    const { dryRun } = purgeOptions(options);
    if (this.#tenant === "") throw unscopedPurgeError();
    const chain = this.#tenant;
    const [from, to] = below(chain);
    const cut = chain.lastIndexOf("/");
    const parent = cut < 0 ? "" : chain.slice(0, cut);
    const id = chain.slice(cut + 1);
    const mine = "(tenant = ?1 OR (tenant > ?2 AND tenant < ?3))";
    if (!dryRun) {
      await this.#batch((sql) => [sql("INSERT OR IGNORE INTO mem_fences (tenant) VALUES (?)", chain)], true);
    }
    const [counted] = await this.#batch(
      (sql) => [
        sql(
          `SELECT count(*) AS files, coalesce(sum(size), 0) AS bytes FROM mem_files WHERE ${mine}`,
          chain,
          from,
          to,
        ),
        ...(dryRun
          ? []
          : [
              sql(`DELETE FROM mem_files WHERE ${mine}`, chain, from, to),
              sql(
                "DELETE FROM mem_tenants WHERE parent = ?1 OR (parent > ?2 AND parent < ?3)",
                chain,
                from,
                to,
              ),
              sql("DELETE FROM mem_tenants WHERE parent = ? AND id = ?", parent, id),
              sql(`DELETE FROM mem_guard WHERE ${mine}`, chain, from, to),
              sql(`DELETE FROM mem_dirs WHERE ${mine}`, chain, from, to),
              sql(`DELETE FROM mem_fences WHERE ${mine}`, chain, from, to),
            ]),
      ],
      !dryRun,
    );
    return { files: (counted?.[0]?.files as number) ?? 0, bytes: (counted?.[0]?.bytes as number) ?? 0 };
  }
}

/** The shared state and chain a scope is being constructed with (the public constructor takes a binding). */
const ScopeOf: { current: { shared: Shared; tenant: string } | undefined } = { current: undefined };
