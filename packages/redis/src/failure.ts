import { isStoreError, StoreFailureError, systemReason } from "@mem/core";

/**
 * Turns a client or server error into a `StoreFailureError` whose reason is safe to show: built from
 * error codes and fixed phrases only, never from messages that could echo a URL, password or data.
 */
export const toStoreFailure = (error: unknown): StoreFailureError => {
  if (isStoreError(error, "STORE_FAILURE")) return error as StoreFailureError;
  return new StoreFailureError(reasonOf(error), { cause: error });
};

// Leading words of Redis error replies that say what went wrong without any payload.
const REPLY_PREFIXES: Array<[string, string]> = [
  ["NOAUTH", "authentication required"],
  ["WRONGPASS", "authentication failed"],
  ["NOPERM", "permission denied"],
  ["OOM", "server out of memory"],
  ["READONLY", "server is read-only"],
  ["MASTERDOWN", "master is down"],
  ["CLUSTERDOWN", "cluster is down"],
  ["TRYAGAIN", "cluster is resharding"],
  ["CROSSSLOT", "keys span several cluster slots"],
  ["LOADING", "server is loading its data"],
  ["BUSY", "server is busy running a script"],
  ["MISCONF", "server cannot persist data"],
];

const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return "redis error";
  const system = systemReason((error as { code?: unknown }).code);
  if (system) return system;
  const message = error.message;
  if (error.name === "MaxRetriesPerRequestError") return "connection lost";
  if (message === "Command timed out") return "timed out";
  if (message === "Connection is closed.") return "connection closed";
  if (message.startsWith("Stream isn't writeable")) return "not connected";
  if (message.includes("None of startup nodes is available")) return "no cluster node reachable";
  if (message.includes("Cluster isn't ready")) return "cluster not ready";
  if (message.startsWith("Failed to refresh slots cache")) return "cluster not reachable";
  if (message.startsWith("Too many Cluster redirections")) {
    return /Connection is closed|ECONNREFUSED|ECONNRESET/.test(message)
      ? "cluster node unreachable"
      : "cluster redirections failed";
  }
  for (const [prefix, reason] of REPLY_PREFIXES) {
    if (message.startsWith(`${prefix} `) || message === prefix) return reason;
  }
  if (/ECONNREFUSED/.test(message)) return "connection refused";
  if (/ETIMEDOUT|timed out/i.test(message)) return "timed out";
  if (error.name === "ReplyError") return "redis rejected the command";
  return "redis error";
};

/**
 * Whether a command that reached the client may still have run on the server after failing with
 * `error`: true for timeouts and lost connections; false when the server answered with an error
 * (the script did not run) or the client refused to send it.
 */
export const mayBeApplied = (error: unknown): boolean => {
  if (!(error instanceof Error)) return true;
  if (error.name === "ReplyError") return false;
  const message = error.message;
  // The client refused to send, or no cluster node could be reached at all.
  if (message.startsWith("Stream isn't writeable")) return false;
  if (message.includes("None of startup nodes is available")) return false;
  if (message.includes("Cluster isn't ready")) return false;
  if (message.startsWith("Failed to refresh slots cache")) return false;
  if (message.startsWith("Too many Cluster redirections") && /ECONNREFUSED/.test(message)) return false;
  return true;
};
