/** Turns whatever a store threw into a reason that is safe to show the model (SPEC §5). */
import { MemoryStoreError, type StoreFailureError } from "./errors.js";

const CODES = [
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "NOT_A_DIRECTORY",
  "CONFLICT",
  "QUOTA_EXCEEDED",
  "STORE_FAILURE",
  "ERASING",
] as const;
type StoreErrorCode = (typeof CODES)[number];

/**
 * True when `error` is the typed store error with that code (without a code: any of them). Matches by
 * shape (a `code` and a name ending in `Error`) as well as by class, so an error built by another copy of
 * @mem/core, or in another realm, is understood too: wrappers test errors with it, never `instanceof`.
 */
export const isStoreError = (error: unknown, code?: StoreErrorCode): boolean => {
  if (typeof error !== "object" || error === null) return false;
  const own = (error as { code?: unknown }).code;
  if (code === undefined ? !CODES.includes(own as StoreErrorCode) : own !== code) return false;
  if (error instanceof MemoryStoreError) return true;
  const name = (error as { name?: unknown }).name;
  return typeof name === "string" && /^[A-Z][A-Za-z]*Error$/.test(name);
};

const SYSTEM_REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EIO: "input/output error",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  ELOOP: "symbolic link not followed",
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ETIMEDOUT: "timed out",
  EPIPE: "connection closed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host lookup failed",
};

/**
 * The reason to show for a Node.js system error code (`ECONNREFUSED` → "connection refused"), or
 * `undefined` for a code without a fixed phrase. For stores turning client errors into
 * `StoreFailureError` reasons that never quote a message.
 *
 * @example
 * ```ts
 * systemReason("ECONNRESET"); // "connection reset"
 * ```
 */
export const systemReason = (code: unknown): string | undefined =>
  typeof code === "string" && Object.hasOwn(SYSTEM_REASONS, code) ? SYSTEM_REASONS[code] : undefined;

/**
 * A reason string for an error result. Unknown errors give only a well-known code, never their
 * message: messages of client libraries can carry URLs, credentials or key material.
 */
export const safeReason = (error: unknown): string => {
  if (isStoreError(error, "STORE_FAILURE")) {
    const reason = (error as StoreFailureError).reason;
    if (typeof reason === "string" && reason !== "") return reason;
  }
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  const system = systemReason(code);
  if (system) return system;
  if (typeof code === "string" && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return `storage error ${code}`;
  return "unexpected storage error";
};
