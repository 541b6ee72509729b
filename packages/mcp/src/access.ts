/**
 * Who may reach a local HTTP server: loopback binding, `Host` checks against DNS rebinding, and static
 * bearer tokens compared in constant time. Shared by the MCP HTTP transport and `mem serve`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { isIPv4 } from "node:net";

/** Printable ASCII without spaces (a token travels in `Authorization: Bearer <token>`), 16 or more. */
const TOKEN = /^[\x21-\x7e]{16,4096}$/;

/** `token`, when it is 16 to 4096 printable ASCII characters without spaces; a `TypeError` naming `option` otherwise. */
export const checkToken = (token: unknown, option: string): string => {
  if (typeof token !== "string" || !TOKEN.test(token)) {
    throw new TypeError(`${option} must be 16 to 4096 printable ASCII characters without spaces`);
  }
  return token;
};

/** Whether binding `host` keeps a server reachable from this machine only. */
export const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host === "::1" || (isIPv4(host) && host.startsWith("127."));

/** The host names a loopback server answers to: anything else in `Host` is a rebound DNS name. */
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Whether a request's `Host` header names the loopback server it reached (`localhost`, `127.0.0.1`,
 * `[::1]` or the bound address, any port). A page on a rebound DNS name sends its own name and is refused.
 */
export const isLoopbackHostHeader = (header: string | undefined, boundHost: string): boolean => {
  if (header === undefined) return false;
  const name = header.replace(/:\d+$/, "").toLowerCase();
  const bound = boundHost.includes(":") ? `[${boundHost}]` : boundHost;
  return LOOPBACK_NAMES.has(name) || name === bound.toLowerCase();
};

const digest = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

/**
 * A fixed set of tokens, each with a value (a tenant, or `undefined` for the whole store). Comparing
 * SHA-256 digests keeps the comparison's length fixed, and every known token is compared, so the time
 * taken says nothing about which token, or how much of one, matched.
 */
export class TokenSet<T = undefined> {
  readonly #known: { digest: Buffer; value: T }[];

  constructor(tokens: Iterable<readonly [token: string, value: T]>) {
    this.#known = [...tokens].map(([token, value]) => ({ digest: digest(token), value }));
  }

  /** How many tokens the set holds. */
  get size(): number {
    return this.#known.length;
  }

  /** The matching token's entry, or `undefined` when `presented` is none of them. */
  match(presented: string): { value: T } | undefined {
    const given = digest(presented);
    let found: { value: T } | undefined;
    for (const entry of this.#known) {
      if (timingSafeEqual(given, entry.digest)) found = { value: entry.value };
    }
    return found;
  }
}
