/**
 * What the SDK's retries hide: whether an earlier attempt of a request may have reached S3 although its
 * answer never came back. A retried write then meets its own earlier effect (a 412 on its own object),
 * and a write that finally fails may still have been applied.
 */
import { statusOf } from "./failure.js";

/** The part of an SDK middleware stack used here, typed loosely: it only watches failures go by. */
interface LooseStack {
  add(
    middleware: (next: (args: unknown) => Promise<unknown>) => (args: unknown) => Promise<unknown>,
    options: { step: "finalizeRequest"; priority: "low"; name: string },
  ): void;
}

export interface AttemptLog {
  /** The failure of the first attempt that may have reached the server, if any did. */
  lost: unknown;
  /** True when an attempt was answered 500 InternalError (see `trackAttempts`). */
  internalError: boolean;
}

/** Network failures that prove the request never left: no connection was ever made. */
const NEVER_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * True when a failed attempt may have reached the server: it got no HTTP answer and it is not a failure
 * that happens before any byte is sent (refused connection, failed lookup, connect timeout, missing
 * credentials). A status answer means S3 decided the request, and decided it as that status says.
 */
export const mayHaveReachedServer = (error: unknown): boolean => {
  if (statusOf(error) !== undefined) return false;
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === "string" && NEVER_SENT_CODES.has(code)) return false;
  if (name === "CredentialsProviderError") return false;
  // The SDK's connect timeout: the socket never connected, so nothing was sent.
  if (name === "TimeoutError" && typeof message === "string" && message.includes("establish a connection"))
    return false;
  return true;
};

/**
 * Watches every attempt of `command` (inside the SDK's retry loop) and records the first one that may
 * have reached the server without an answer, and whether one was answered with a 500: Ceph RGW gives the
 * losers of concurrent `If-Match` writes a 500 instead of a 412, so a conditional write checks its own
 * write id after one.
 */
export const trackAttempts = (command: { middlewareStack: object }): AttemptLog => {
  const log: AttemptLog = { lost: undefined, internalError: false };
  (command.middlewareStack as LooseStack).add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (log.lost === undefined && mayHaveReachedServer(error)) log.lost = error;
        if (statusOf(error) === 500) log.internalError = true;
        throw error;
      }
    },
    { step: "finalizeRequest", priority: "low", name: "memAttemptTracker" },
  );
  return log;
};
