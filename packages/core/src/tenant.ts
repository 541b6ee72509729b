/** Tenant ids (SPEC §7): they come from the application, so a bad one is a `TypeError`, not a tool result. */

const TENANT = /^[A-Za-z0-9._@+-]{1,128}$/;

/**
 * Returns `tenant` when it is a valid tenant id: 1 to 128 bytes of `[A-Za-z0-9._@+-]`, not `.` or `..`.
 * Throws a `TypeError` naming the problem otherwise. Every store's `scope()` calls it first.
 *
 * @example
 * ```ts
 * checkTenant("user-42@example.com"); // "user-42@example.com"
 * checkTenant("../other");            // throws TypeError
 * ```
 */
export function checkTenant(tenant: unknown): string {
  if (typeof tenant !== "string") throw new TypeError("tenant must be a string");
  if (!TENANT.test(tenant) || tenant === "." || tenant === "..") {
    throw new TypeError("tenant must be 1 to 128 characters of A-Z a-z 0-9 . _ @ + - and not '.' or '..'");
  }
  return tenant;
}
