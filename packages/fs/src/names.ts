import { randomBytes } from "node:crypto";

/**
 * Every name the store keeps for its own bookkeeping starts with this prefix. The names are hidden
 * (leading `.`), so listings never show them, and `isReservedName` makes the path validator refuse
 * them to users so that no command can read, overwrite or delete them.
 */
export const RESERVED_PREFIX = ".~mem-";

/**
 * The directory in a root that holds its tenants: `{root}/.~mem-tenants/{tenant}` is the root of
 * `scope(tenant)`. Tenant ids never contain `~`, so no tenant's own bookkeeping can collide with it, and
 * the reserved name keeps it out of reach and out of sight of the unscoped store.
 */
export const TENANTS_DIR = `${RESERVED_PREFIX}tenants`;

/** The root's kept totals of files and bytes (see totals.ts), in the root directory. */
export const TOTALS_NAME = `${RESERVED_PREFIX}usage`;

/** Temporary file of an atomic write, in the directory of the file being written. */
export const TEMP_PREFIX = `${RESERVED_PREFIX}tmp-`;

/** The cross-process lock of a root, in the root directory. */
export const LOCK_NAME = `${RESERVED_PREFIX}lock`;

/**
 * Markers `{prefix}{token}` in the root: holding the marker of an abandoned lock (or of an abandoned
 * marker) is the right to replace it.
 */
export const MARKER_PREFIX = `${RESERVED_PREFIX}lock-dead-`;

/** Files a lock candidate is written to before it is linked into place: `{prefix}{pid}.{random}`. */
export const LOCK_TEMP_PREFIX = `${RESERVED_PREFIX}lock-tmp-`;

export const isReservedName = (name: string): boolean => name.startsWith(RESERVED_PREFIX);

export const tempName = (): string => `${TEMP_PREFIX}${randomBytes(12).toString("hex")}`;

export const lockTempName = (): string =>
  `${LOCK_TEMP_PREFIX}${process.pid}.${randomBytes(8).toString("hex")}`;

/** The pid that wrote a lock candidate, or `null` when the name is not one. */
export const pidOfLockTemp = (name: string): number | null => {
  if (!name.startsWith(LOCK_TEMP_PREFIX)) return null;
  const pid = Number.parseInt(name.slice(LOCK_TEMP_PREFIX.length), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
};
