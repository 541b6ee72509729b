/**
 * Who may use the console: loopback `Host` names only on a loopback address (DNS rebinding), a bearer
 * token (header, or the session cookie the login link sets) when one is set, same-origin requests only,
 * a CSRF token on every write, and writes only for a role that may write.
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

/** The console cookie's value, or `undefined` when absent or not a valid encoding (never a throw). */
export const cookieOf = (header: string | undefined): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name !== COOKIE) continue;
    try {
      return decodeURIComponent(value.join("="));
    } catch {
      return undefined;
    }
  }
  return undefined;
};

export type Verdict = { ok: true } | { ok: false; status: number; reason: string };

/** What a request may do: look, or also restore and roll back. */
export type Role = "read" | "write";

export type Admission = { ok: true; role: Role } | { ok: false; status: number; reason: string };

/** The longest a login lasts unless told otherwise: 12 hours. */
export const SESSION_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 1000;

export interface GuardOptions {
  host: string;
  loopback: boolean;
  /** The read token: with `writes`, it may write too. */
  token: string | undefined;
  /** A token that may write whether or not `writes` is set. */
  writeToken: string | undefined;
  /** Whether holders of `token` (or anyone, when there is no token) may write. */
  writes: boolean;
  sessionMs: number;
}

/**
 * The console is served under `base`, a random path made at each start, and its session cookie is
 * scoped to that path. Browsers send a cookie to every port of a host, but only for paths under its
 * `Path`: another server on this host is never sent it unless it knows the path. The cookie holds a
 * session id, never the token, and a session ends after `sessionMs`.
 */
export class Guard {
  readonly csrf = randomBytes(24).toString("base64url");
  readonly base = `/${randomBytes(12).toString("base64url")}/`;
  readonly #tokens: TokenSet<Role> | undefined;
  readonly #sessions = new Map<string, { role: Role; expires: number }>();
  readonly #options: GuardOptions;

  constructor(options: GuardOptions) {
    this.#options = options;
    const tokens: [string, Role][] = [];
    if (options.token !== undefined) tokens.push([options.token, options.writes ? "write" : "read"]);
    if (options.writeToken !== undefined) tokens.push([options.writeToken, "write"]);
    this.#tokens = tokens.length === 0 ? undefined : new TokenSet(tokens);
  }

  get needsToken(): boolean {
    return this.#tokens !== undefined;
  }

  /** The role of the token `presented` (undefined when it is none of them, or none is set). */
  roleOf(presented: string): Role | undefined {
    return this.#tokens?.match(presented)?.value;
  }

  /** The checks every request passes before anything else. */
  check(req: IncomingMessage): Verdict {
    if (this.#options.loopback && !isLoopbackHostHeader(req.headers.host, this.#options.host)) {
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

  /** Who is asking: a bearer token or a live session's cookie, when a token is set. */
  authenticate(req: IncomingMessage): Admission {
    if (!this.#tokens) return { ok: true, role: this.#options.writes ? "write" : "read" };
    const auth = req.headers.authorization;
    if (auth?.startsWith("Bearer ")) {
      const role = this.roleOf(auth.slice(7));
      if (role) return { ok: true, role };
    } else {
      const id = cookieOf(req.headers.cookie);
      const session = id === undefined ? undefined : this.#sessions.get(id);
      if (session && session.expires > Date.now()) return { ok: true, role: session.role };
      if (session && id !== undefined) this.#sessions.delete(id);
    }
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

  /** A new session for `role`, and the cookie that carries it: HttpOnly, this path of this site only. */
  login(role: Role): string {
    const now = Date.now();
    for (const [id, session] of this.#sessions) if (session.expires <= now) this.#sessions.delete(id);
    // The oldest sessions go first when too many are open.
    while (this.#sessions.size >= MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next().value as string;
      this.#sessions.delete(oldest);
    }
    const id = randomBytes(24).toString("base64url");
    this.#sessions.set(id, { role, expires: now + this.#options.sessionMs });
    const seconds = Math.max(1, Math.floor(this.#options.sessionMs / 1000));
    return `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=${this.base}; Max-Age=${seconds}`;
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
