/** Turns errors of the S3 client into the typed store errors, with reasons that are safe to show. */
import { isStoreError, StoreFailureError } from "@mem/core";

interface ClientError {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/** The HTTP status of a failed S3 call, when the server answered. */
export const statusOf = (error: unknown): number | undefined => {
  const status = (error as ClientError | null)?.$metadata?.httpStatusCode;
  return typeof status === "number" ? status : undefined;
};

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed",
  ETIMEDOUT: "request timed out",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  TimeoutError: "request timed out",
  RequestTimeout: "request timed out",
  AbortError: "request aborted",
  CredentialsProviderError: "no credentials available",
};

/** Error codes are shown only when they look like codes: never free text, URLs or signatures. */
const CODE = /^[A-Za-z][A-Za-z0-9.]{0,63}$/;

/**
 * A `StoreFailureError` for a failed call of S3 operation `operation`. The reason names the operation,
 * the HTTP status and the S3 error code, or a network condition; it never includes the error's message,
 * which can carry a canonical request, credential scope or signed URL. `mayBeApplied` marks a write
 * whose effect is unknown (SPEC §5).
 */
export const toStoreFailure = (
  operation: string,
  error: unknown,
  options: { mayBeApplied?: boolean } = {},
): StoreFailureError => {
  if (isStoreError(error, "STORE_FAILURE")) return error as StoreFailureError;
  const { name, code } = (error ?? {}) as ClientError;
  const status = statusOf(error);
  const known = [code, name].find((c): c is string => typeof c === "string" && c in NETWORK_REASONS);
  let reason: string;
  if (known !== undefined && (status === undefined || known === "RequestTimeout")) {
    reason = NETWORK_REASONS[known]!;
  } else if (status !== undefined) {
    const shown = typeof name === "string" && CODE.test(name) && name !== "Error" ? ` (${name})` : "";
    reason = `S3 ${operation} returned HTTP ${status}${shown}`;
  } else {
    const shown = typeof code === "string" && CODE.test(code) ? ` (${code})` : "";
    reason = `S3 ${operation} request failed${shown}`;
  }
  // No `cause`: the client error can carry signed request details, and errors get logged.
  return new StoreFailureError(reason, { mayBeApplied: options.mayBeApplied === true });
};
