/** Bearer tokens of the HTTP transport: checked in constant time, never logged, never echoed. */
import { createHash, timingSafeEqual } from "node:crypto";
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthTokenVerifier } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";

/** Printable ASCII without spaces (a token travels in `Authorization: Bearer <token>`), 16 or more. */
const TOKEN = /^[\x21-\x7e]{16,4096}$/;

export const checkToken = (token: unknown, option: string): string => {
  if (typeof token !== "string" || !TOKEN.test(token)) {
    throw new TypeError(`${option} must be 16 to 4096 printable ASCII characters without spaces`);
  }
  return token;
};

// Static tokens do not expire; the SDK's bearer middleware insists on an expiry time.
const NEVER = Number.MAX_SAFE_INTEGER;

const digest = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

/**
 * Verifies presented tokens against a fixed set. Each known token maps to a tenant (or `undefined` for
 * the whole store). Comparing SHA-256 digests keeps the comparison's length fixed, and every known token
 * is compared, so the time taken says nothing about which token, or how much of one, matched.
 */
export class StaticTokenVerifier implements OAuthTokenVerifier {
  private readonly known: { digest: Buffer; tenant: string | undefined }[];

  constructor(tokens: Iterable<readonly [token: string, tenant: string | undefined]>) {
    this.known = [...tokens].map(([token, tenant]) => ({ digest: digest(token), tenant }));
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const presented = digest(token);
    let match: { tenant: string | undefined } | undefined;
    for (const entry of this.known) {
      if (timingSafeEqual(presented, entry.digest)) match = entry;
    }
    if (!match) throw new InvalidTokenError("Invalid token");
    const extra: Record<string, unknown> = {};
    if (match.tenant !== undefined) extra["tenant"] = match.tenant;
    return { token, clientId: "mem-mcp", scopes: [], expiresAt: NEVER, extra };
  }
}
