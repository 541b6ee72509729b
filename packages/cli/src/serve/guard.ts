/**
 * Who may use the console: loopback `Host` names only on a loopback address (DNS rebinding), a bearer
 * token (header, or the cookie the login link sets) when one is set, same-origin requests only, and a
 * CSRF token on every write.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isLoopbackHostHeader, TokenSet } from "@mem/mcp";

export const COOKIE = "mem_console";
/** The header a write must carry, holding the token `/api/info` gives the page. */
export const CSRF_HEADER = "x-mem-csrf";

/** No script but the console's own files, no request to anywhere but this server. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};

const cookieOf = (header: string | undefined): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === COOKIE) return decodeURIComponent(value.join("="));
  }
  return undefined;
};

export type Verdict = { ok: true } | { ok: false; status: number; reason: string };

export class Guard {
  readonly csrf = randomBytes(24).toString("base64url");
  readonly #tokens: TokenSet | undefined;
  readonly #host: string;
  readonly #loopback: boolean;

  constructor(host: string, loopback: boolean, token: string | undefined) {
    this.#host = host;
    this.#loopback = loopback;
    this.#tokens = token === undefined ? undefined : new TokenSet([[token, undefined]]);
  }

  get needsToken(): boolean {
    return this.#tokens !== undefined;
  }

  /** Whether `presented` is the token (always false when none is set). */
  tokenMatches(presented: string): boolean {
    return this.#tokens?.match(presented) !== undefined;
  }

  /** The checks every request passes before anything else. */
  check(req: IncomingMessage): Verdict {
    if (this.#loopback && !isLoopbackHostHeader(req.headers.host, this.#host)) {
      return { ok: false, status: 403, reason: "Host not allowed" };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host}`) {
      return { ok: false, status: 403, reason: "Cross-origin request refused" };
    }
    if (req.headers["sec-fetch-site"] === "cross-site") {
      return { ok: false, status: 403, reason: "Cross-site request refused" };
    }
    return { ok: true };
  }

  /** The token check: a bearer header or the console's cookie. */
  authenticate(req: IncomingMessage): Verdict {
    if (!this.#tokens) return { ok: true };
    const auth = req.headers.authorization;
    const presented = auth?.startsWith("Bearer ") ? auth.slice(7) : cookieOf(req.headers.cookie);
    if (presented !== undefined && this.tokenMatches(presented)) return { ok: true };
    return { ok: false, status: 401, reason: "A valid token is required" };
  }

  /** Writes come from the console's own page: same origin, and the CSRF token it was given. */
  checkWrite(req: IncomingMessage): Verdict {
    if (req.headers.origin !== `http://${req.headers.host}`) {
      return { ok: false, status: 403, reason: "Writes need the console's Origin" };
    }
    const given = req.headers[CSRF_HEADER];
    if (typeof given !== "string" || !new TokenSet([[this.csrf, undefined]]).match(given)) {
      return { ok: false, status: 403, reason: "Missing or wrong CSRF token" };
    }
    return { ok: true };
  }

  /** The cookie the login link sets: HttpOnly, this site only. */
  loginCookie(token: string): string {
    return `${COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

export const refuse = (res: ServerResponse, status: number, reason: string): void => {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": "application/json; charset=utf-8" });
  res.end(JSON.stringify({ error: reason }));
};
