/**
 * The store's Lua code as a Redis function library (see script.ts): loaded on first use into each server
 * (every master of a Cluster), then called with FCALL. A client whose server has no functions (before
 * Redis 7) or that may not load or call them (an ACL without `FUNCTION` or `FCALL`) uses the script form
 * from then on.
 */
import { Cluster, type Redis } from "ioredis";
import { STORE_LIBRARY } from "./script.js";

/** Clients that run the code as a script. */
export const scriptOnly = new WeakSet<Redis | Cluster>();

/** Whether `error`, the answer to an FCALL, says that this server or user has no functions at all. */
export const refusesFunctions = (error: Error): boolean => /^ERR unknown command|^NOPERM/.test(error.message);

/**
 * Loads the library into the client's server, or into every master of a Cluster (REPLACE: loading it
 * again is harmless, and a node added since the last load gets it). False when a server refused it.
 */
export const loadLibrary = async (client: Redis | Cluster): Promise<boolean> => {
  const nodes = client instanceof Cluster ? client.nodes("master") : [client];
  try {
    await Promise.all(nodes.map((node) => node.call("FUNCTION", "LOAD", "REPLACE", STORE_LIBRARY)));
    return true;
  } catch {
    return false;
  }
};
