/**
 * Turns what `pg` throws into a `StoreFailureError` whose reason is safe to show the model: built from
 * SQLSTATE and system error codes and fixed phrases only, never from messages, which can name hosts,
 * users, databases or values.
 */
import { isStoreError, StoreFailureError, systemReason } from "@mem/core";

/** SQLSTATEs that mean "try the whole statement again": nothing of it was applied. */
export const RETRYABLE = new Set(["40001", "40P01"]);

const SQLSTATE_REASONS: Record<string, string> = {
  "25006": "the database is read-only",
  "57014": "the statement was canceled",
  "55P03": "timed out waiting for a lock",
  "40001": "kept failing to serialize with concurrent transactions",
  "40P01": "deadlock detected",
  "28P01": "authentication failed",
  "28000": "authentication failed",
  "3D000": "the database does not exist",
  "3F000": "the schema does not exist",
  "42501": "permission denied",
  "42P01": "the table does not exist",
  "42883": "the store's functions are missing",
  "53100": "the database's disk is full",
  "53200": "the database is out of memory",
  "53300": "too many connections to the database",
  "57P01": "the database server terminated the connection",
  "57P02": "the database server crashed",
  "57P03": "the database server is not accepting connections",
  "25P02": "the transaction was aborted",
  "08006": "connection lost",
  "08001": "could not connect to the database",
  "08004": "the database server refused the connection",
};

// Client-side messages of pg and pg-pool that carry no data: matched, never shown.
const CLIENT_REASONS: Array<[RegExp, string]> = [
  [/^Connection terminated unexpectedly/, "connection lost"],
  [/^Connection terminated due to connection timeout/, "connection timed out"],
  [/^Connection terminated/, "connection closed"],
  [/^timeout exceeded when trying to connect/, "timed out waiting for a connection"],
  [/^Query read timeout/, "timed out"],
  [/not queryable/, "connection closed"],
  [/^Cannot use a pool after calling end/, "the store is closed"],
  [/password must be a string|SASL/, "authentication failed"],
];

/** The SQLSTATE migration.sql's `fenced` raises: the write's tenant is being erased, nothing changed. */
export const ERASING = "ME001";

/** The SQLSTATE of an error the server sent, if it is one. */
export const sqlStateOf = (error: unknown): string | undefined => {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const severity = (error as { severity?: unknown }).severity;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && typeof severity === "string"
    ? code
    : undefined;
};

/**
 * Whether a statement that would have changed something, sent and then failed with `error`, may have
 * been applied anyway: false when the server answered with an error (the statement rolled back) or the
 * client gave up on it before sending it; true for timeouts and lost connections.
 */
export const mayBeApplied = (error: unknown): boolean =>
  sqlStateOf(error) === undefined &&
  !(error instanceof Error && /not queryable|^Cannot use a pool after calling end/.test(error.message));

export const reasonOf = (error: unknown): string => {
  if (isStoreError(error, "STORE_FAILURE")) return (error as StoreFailureError).reason;
  if (!(error instanceof Error)) return "database error";
  const state = sqlStateOf(error);
  if (state) {
    if (state === "57014" && /statement timeout/.test(error.message)) return "the statement timed out";
    return SQLSTATE_REASONS[state] ?? `database error ${state}`;
  }
  const system = systemReason((error as { code?: unknown }).code);
  if (system) return system;
  for (const [pattern, reason] of CLIENT_REASONS) if (pattern.test(error.message)) return reason;
  if (error instanceof AggregateError) return reasonOf(error.errors[0]);
  return "database error";
};

/**
 * The `StoreFailureError` for `error`. `sent` says the statement was on its way to the server and would
 * have changed something: when the server's answer never came, the change may have been applied.
 */
export const toStoreFailure = (error: unknown, sent: boolean): StoreFailureError => {
  if (isStoreError(error, "STORE_FAILURE")) return error as StoreFailureError;
  return new StoreFailureError(reasonOf(error), { cause: error, mayBeApplied: sent && mayBeApplied(error) });
};
