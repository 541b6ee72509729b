/**
 * Errors of the Workers runtime's storage turned into core's: a `StoreFailureError` whose reason names
 * the store and says what went wrong in words the model may see (never a query, a binding's secret or a
 * message of the runtime, which can quote them).
 */
import { isStoreError, StoreFailureError } from "@mem/core";

/** Which storage failed: the Durable Object store or the D1 store. */
export type StoreName = "Durable Object" | "D1";

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The reason a model may read for `error`, naming the store. */
export function reasonOf(error: unknown, store: StoreName): string {
  const message = messageOf(error);
  if (
    /SQLITE_FULL|database or disk is full|storage limit|exceeded.*(storage|size)|too large/i.test(message)
  ) {
    return `${store} storage limit reached`;
  }
  if (/string or blob too big/i.test(message)) return `${store} row size limit reached`;
  if (
    /too many SQL variables|SQLITE_TOOBIG|statement too long|too many (statements|queries)|LIMIT_/i.test(
      message,
    )
  ) {
    return `${store} statement limit reached`;
  }
  if (/does not implement|not a function|no such method/i.test(message)) {
    return store === "D1"
      ? "the D1 binding is not a D1 database"
      : "the Durable Object binding is not a MemoryObject namespace";
  }
  if (/overloaded|reset|timed out|timeout|network|disconnected/i.test(message)) {
    return `${store} request failed`;
  }
  return `${store} storage error`;
}

/**
 * `error` as core's typed error: core's own typed errors pass through; anything else becomes a
 * `StoreFailureError` naming the store. `mayBeApplied` when a change may have reached storage.
 */
export function toStoreFailure(error: unknown, store: StoreName, mayBeApplied = false): Error {
  if (isStoreError(error)) return error as Error;
  const reason = reasonOf(error, store);
  // A binding of the wrong kind refuses the call before anything runs; an error with SQLite's result
  // code came from running the statements, and a batch (a transaction) that fails is rolled back whole.
  // Either way nothing can have been applied.
  const refused = reason.startsWith("the ") || /\bSQLITE_[A-Z]+\b/.test(messageOf(error));
  return new StoreFailureError(reason, { cause: error, mayBeApplied: mayBeApplied && !refused });
}

/** The failure of a store whose binding is not there (`env.MEMORY` or `env.DB` undefined). */
export const missingBinding = (store: StoreName): StoreFailureError =>
  new StoreFailureError(
    store === "D1"
      ? "the D1 binding is missing (check the d1_databases of wrangler.toml)"
      : "the Durable Object binding is missing (check the durable_objects of wrangler.toml)",
  );
