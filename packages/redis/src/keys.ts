/**
 * Key naming. Every key of one store starts with the same base, and the base holds a Redis Cluster
 * hash tag, so all of a store's keys live in one slot and one Lua script may touch any of them.
 */

/** The hash tag Redis Cluster would hash for `key`: the text between the first `{` and the next `}`. */
export const hashTagOf = (key: string): string | undefined => {
  const open = key.indexOf("{");
  if (open < 0) return undefined;
  const close = key.indexOf("}", open + 1);
  if (close < 0 || close === open + 1) return undefined;
  return key.slice(open + 1, close);
};

/**
 * The key base of a store: `prefix` itself when it already carries a hash tag (`app:{tenant-1}:`),
 * otherwise the prefix wrapped into one (`tenant-1` → `{tenant-1}:`).
 */
export const keyBaseOf = (prefix: string): string => {
  if (typeof prefix !== "string" || prefix.length === 0) {
    throw new TypeError("RedisStore: `prefix` must be a non-empty string");
  }
  const base = hashTagOf(prefix) === undefined ? `{${prefix}}:` : prefix;
  // Scopes add `:tenant:<id>` to the tag (see `scopedKeyBase`): a tag without a `tenant` segment of its
  // own can never be one of them, so `app:tenant:alice` cannot reach the keys of `app`'s tenant `alice`.
  if (`:${hashTagOf(base)}:`.includes(TENANT_SEGMENT)) {
    throw new TypeError(
      "RedisStore: `prefix` must not hold `tenant` between colons in its hash tag: such keys belong to the tenants of another prefix (use `scope(tenant)` or `?tenant=`)",
    );
  }
  return base;
};

const TENANT_SEGMENT = ":tenant:";

/** The version counter key, which also routes every script call to the store's slot. */
export const routingKeyOf = (base: string): string => `${base}seq`;

/**
 * The key base of tenant `tenant` within the store of key base `base`: the same text around a hash tag
 * of its own, `{<tag>:tenant:<tenant>}`, so a tenant's keys share a slot of their own on a Cluster.
 * Tenant ids hold no `{`, `}` or `:`, so two tenants of one store never share a tag.
 */
export const scopedKeyBase = (base: string, tenant: string): string => {
  const open = base.indexOf("{");
  const close = base.indexOf("}", open + 1);
  return `${base.slice(0, open + 1)}${base.slice(open + 1, close)}${TENANT_SEGMENT}${tenant}${base.slice(close)}`;
};
