/** The SQL names a store uses, derived from its validated `schema` and `table` options. */

/** Lower-case letters, digits and `_`, starting with a letter or `_`: never needs case folding or escaping. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

export const DEFAULT_SCHEMA = "public";
export const DEFAULT_TABLE = "mem_files";

/** Longest table name: PostgreSQL cuts identifiers at 63 bytes, and derived names add up to 14. */
export const MAX_TABLE_LENGTH = 48;

/**
 * Returns `value` when it is a plain identifier of at most `max` bytes; throws a `TypeError` naming the
 * option otherwise. Plain identifiers are still quoted in SQL, so reserved words work.
 */
export const checkIdentifier = (option: string, value: unknown, max: number): string => {
  if (typeof value !== "string" || !IDENTIFIER.test(value) || value.length > max) {
    throw new TypeError(
      `PostgresStore: \`${option}\` must be 1 to ${max} characters of a-z, 0-9 and _, not starting with a digit`,
    );
  }
  return value;
};

/** Quoted, schema-qualified names of everything the store creates. */
export interface SqlNames {
  /** `"schema"."table"` */
  readonly table: string;
  /** The prefix of the store's functions and sequence: `"schema"."table_` (append a suffix and `"`). */
  readonly prefix: string;
  /** Unquoted `table`, for index names (indexes live in their table's schema). */
  readonly bare: string;
  /** Unquoted `schema.table`, used to name prepared statements and the migration lock. */
  readonly key: string;
}

export const sqlNames = (schema: string, table: string): SqlNames => ({
  table: `"${schema}"."${table}"`,
  prefix: `"${schema}"."${table}_`,
  bare: table,
  key: `${schema}.${table}`,
});

/** A function or sequence of the store: `fn(names, "write")` → `"schema"."table_write"`. */
export const fn = (names: SqlNames, suffix: string): string => `${names.prefix}${suffix}"`;
