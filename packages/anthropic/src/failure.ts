/** Turns errors of the Anthropic SDK into core's typed store errors, with reasons that are safe to show. */
import { isStoreError, StoreFailureError, systemReason } from "@mem/core";

/** The `error` object of an API error body (`{ type: "error", error: {...} }`), when the server answered. */
export interface ApiErrorObject {
  type?: string;
  conflicting_path?: string;
  conflicting_memory_id?: string;
}

/** The HTTP status of a failed SDK call; `undefined` when no answer came (a connection error). */
export const statusOf = (error: unknown): number | undefined => {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
};

/** The `error` object of the answer's body, when there is one. */
export const errorObjectOf = (error: unknown): ApiErrorObject => {
  const body = (error as { error?: unknown } | null)?.error as { error?: unknown } | undefined;
  const inner = body?.error;
  return typeof inner === "object" && inner !== null ? (inner as ApiErrorObject) : {};
};

/** A failure the server may not have seen, or answered with a temporary error: worth another attempt. */
export const isRetryable = (error: unknown): boolean => {
  const status = statusOf(error);
  if (status === undefined) return !isStoreError(error) && isConnectionError(error);
  return status === 408 || status === 429 || status >= 500;
};

/** True for the SDK's connection errors and timeouts (the request may have reached the server). */
export const isConnectionError = (error: unknown): boolean => {
  const name = (error as { name?: unknown } | null)?.name;
  return name === "APIConnectionError" || name === "APIConnectionTimeoutError";
};

/** Error types are shown only when they look like types: never free text. */
const TYPE = /^[a-z][a-z_]{0,63}$/;

/**
 * A `StoreFailureError` for a failed call of `operation`. The reason names the operation, the HTTP status
 * and the API's error type, or the network condition; never the error's message or the request (which
 * carry no key, but may carry paths of other tenants). `mayBeApplied` marks a write whose effect is unknown.
 */
export const toStoreFailure = (
  operation: string,
  error: unknown,
  options: { mayBeApplied?: boolean } = {},
): StoreFailureError => {
  if (isStoreError(error, "STORE_FAILURE")) return error as StoreFailureError;
  const status = statusOf(error);
  let reason: string;
  if (status !== undefined) {
    const type = errorObjectOf(error).type;
    reason = `the memory store API ${operation} returned HTTP ${status}${typeof type === "string" && TYPE.test(type) ? ` (${type})` : ""}`;
  } else if ((error as { name?: unknown } | null)?.name === "APIConnectionTimeoutError") {
    reason = "request timed out";
  } else {
    const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
    reason = systemReason(code) ?? "connection failed";
  }
  return new StoreFailureError(reason, { mayBeApplied: options.mayBeApplied === true });
};
