/** The state a `PostgresStore` and all its scopes share. */

import type { LineCache } from "@mem/core";
import type pg from "pg";
import type { SqlNames } from "./names.js";
import type { KnownDirectories } from "./outcomes.js";
import type { Statements } from "./statements.js";

/** What a store and all its scopes share: one pool, one schema check, one set of names. */
export interface Shared {
  readonly pool: pg.Pool;
  readonly names: SqlNames;
  readonly sql: Statements;
  readonly expireAfterMs: number | undefined;
  readonly clock: () => number;
  /** The lines of large files kept between `view_range` windows (see `lineCacheBytes`). */
  readonly lines: LineCache;
  /** Paths (tenant key, NUL, path) last viewed as directories, for `readOrList`. */
  readonly directories: KnownDirectories;
  /** Whether creating or upgrading the table makes the search index (the `searchIndex` option). */
  readonly searchIndex: boolean;
  ready: Promise<void> | undefined;
}
