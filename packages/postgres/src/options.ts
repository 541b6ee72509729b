/** The options of `PostgresStore`, their checks, and the `tenant` column's keys. */
import type { ExpiryOptions } from "@mem/core";
import type pg from "pg";

/**
 * The `tenant` column of a store's rows: `/` for a store made without `tenant`, then `/id` for each scope
 * it is inside (`scope("a").scope("b")` is `/a/b`). Tenant ids never hold `/`, so no two chains share a key.
 */
export const tenantKey = (parent: string, tenant: string): string =>
  parent === "/" ? `/${tenant}` : `${parent}/${tenant}`;

/** The key of a store made without `tenant` and not through `scope()`. */
export const ROOT_KEY = "/";

interface CommonOptions extends ExpiryOptions {
  /** The table holding every tenant's files. Default `mem_files`. */
  table?: string;
  /** The schema of the table (it must exist). Default `public`. */
  schema?: string;
  /**
   * The tenant this store reads and writes, the same as `scope(tenant)` of a store made without it.
   * Unset: the unscoped store, which never sees its tenants' files.
   */
  tenant?: string | undefined;
  /**
   * Bytes of large UTF-8 files (64 KiB and up) kept in this process between `view_range` windows, with
   * their line offsets: the next window of an unchanged file is a row of a few bytes, not the file.
   * Shared by the store and its scopes. Not used with expiry (each view then records its access). `0`
   * keeps nothing (each window is cut from the text sent for it). Default 32 MiB.
   */
  lineCacheBytes?: number;
  /**
   * Whether the table gets the `pg_trgm` index that `search()` (the `memory_search` tool) uses, when the
   * store creates or upgrades it. Keeping the index is the largest single part of a write's server time (PostgreSQL
   * extracts the trigrams of the whole file on every write); without it no extension is needed, and
   * search reads the tenant's files under the searched path in its one statement, which is slower only for
   * tenants holding many megabytes. An index already on the table stays (`DROP INDEX` it to stop paying for
   * it). Default `true`.
   */
  searchIndex?: boolean;
}

export type PostgresStoreOptions = CommonOptions &
  (
    | {
        /** The application's `pg.Pool`. The store never ends it. */
        pool: pg.Pool;
      }
    | {
        /** A `postgres://` connection string; the store creates its own pool and ends it in `close()`. */
        connectionString: string;
        /** More `pg.Pool` settings for the created pool (size, SSL, timeouts). */
        poolConfig?: Omit<pg.PoolConfig, "connectionString">;
      }
  );

export const checkOptions = (options: PostgresStoreOptions): void => {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("PostgresStore: options must be an object with `pool` or `connectionString`");
  }
  const hasPool = "pool" in options && options.pool !== undefined;
  const hasUrl = "connectionString" in options && options.connectionString !== undefined;
  if (hasPool === hasUrl) {
    throw new TypeError("PostgresStore: give exactly one of `pool` (a pg.Pool) and `connectionString`");
  }
  if (hasPool && typeof (options as { pool: { connect?: unknown } }).pool.connect !== "function") {
    throw new TypeError("PostgresStore: `pool` must be a pg.Pool");
  }
  if (hasUrl && typeof (options as { connectionString: unknown }).connectionString !== "string") {
    throw new TypeError("PostgresStore: `connectionString` must be a postgres:// URL string");
  }
  const expire = options.expireAfterSeconds;
  if (expire !== undefined && !(typeof expire === "number" && Number.isFinite(expire) && expire > 0)) {
    throw new TypeError("PostgresStore: `expireAfterSeconds` must be a positive number of seconds");
  }
  const cacheBytes = options.lineCacheBytes;
  if (cacheBytes !== undefined && !(Number.isSafeInteger(cacheBytes) && cacheBytes >= 0)) {
    throw new TypeError("PostgresStore: `lineCacheBytes` must be a whole number of bytes, 0 or more");
  }
  if (options.searchIndex !== undefined && typeof options.searchIndex !== "boolean") {
    throw new TypeError("PostgresStore: `searchIndex` must be true or false");
  }
  if (options.clock !== undefined && typeof options.clock !== "function") {
    throw new TypeError("PostgresStore: `clock` must be a function returning milliseconds since the epoch");
  }
};
