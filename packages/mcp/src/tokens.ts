/** Bearer tokens of the HTTP transport: checked in constant time, never logged, never echoed. */
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthTokenVerifier } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { TokenSet } from "./access.js";

export { checkToken } from "./access.js";

// Static tokens do not expire; the SDK's bearer middleware insists on an expiry time.
const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * Verifies presented tokens against a fixed set. Each known token maps to a tenant (or `undefined` for
 * the whole store). Comparing SHA-256 digests keeps the comparison's length fixed, and every known token
 * is compared, so the time taken says nothing about which token, or how much of one, matched.
 */
export class StaticTokenVerifier implements OAuthTokenVerifier {
  readonly #tokens: TokenSet<string | undefined>;

  constructor(tokens: Iterable<readonly [token: string, tenant: string | undefined]>) {
    this.#tokens = new TokenSet(tokens);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const found = this.#tokens.match(token);
    const match = found && { tenant: found.value };
    if (!match) throw new InvalidTokenError("Invalid token");
    const extra: Record<string, unknown> = {};
    if (match.tenant !== undefined) extra["tenant"] = match.tenant;
    return { token, clientId: "mem-mcp", scopes: [], expiresAt: NEVER, extra };
  }
}
