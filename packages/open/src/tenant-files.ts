/**
 * The tenants of a per-tenant mount whose `{tenant}` names a file or directory (`sqlite:./users/{tenant}.db`,
 * `fs:./users/{tenant}`): the names in that folder that fit the pattern, one tenant each.
 */
import { readdir } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import {
  checkTenant,
  compareTenantIds,
  type TenantPage,
  type TenantsOptions,
  tenantPage,
  tenantPageOptions,
} from "@mem/core";
import { parseStoreUrl } from "./parse.js";

const PLACEHOLDER = "{tenant}";

const isTenant = (id: string): boolean => {
  try {
    checkTenant(id);
    return true;
  } catch {
    return false;
  }
};

/**
 * `tenants()` for the `{tenant}` mount `url` (relative paths against `cwd`), or `undefined` when the
 * placeholder does not name exactly one local file or directory: the last name of an `fs:` root or of a
 * `sqlite:` file, once, and nowhere above it. Tenants are listed by id only, as names alone tell.
 */
export function tenantLister(
  url: string,
  cwd: string,
): ((options?: TenantsOptions) => Promise<TenantPage>) | undefined {
  let backend: ReturnType<typeof parseStoreUrl>["backend"];
  try {
    backend = parseStoreUrl(url).backend;
  } catch {
    return undefined;
  }
  const path = backend.kind === "fs" ? backend.root : backend.kind === "sqlite" ? backend.file : undefined;
  if (typeof path !== "string") return undefined;
  const name = basename(path);
  const at = name.indexOf(PLACEHOLDER);
  if (at < 0 || name.indexOf(PLACEHOLDER, at + 1) >= 0 || dirname(path).includes(PLACEHOLDER))
    return undefined;
  const prefix = name.slice(0, at);
  const suffix = name.slice(at + PLACEHOLDER.length);
  const folder = resolve(cwd, dirname(path));
  const directories = backend.kind === "fs";
  return async (options) => {
    const { after, limit } = tenantPageOptions(options);
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      // No folder yet: no tenant has written anything.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { tenants: [] };
      throw error;
    }
    const ids = entries
      .filter((e) => (directories ? e.isDirectory() : e.isFile()))
      .map((e) => e.name)
      .filter((n) => n.length > prefix.length + suffix.length && n.startsWith(prefix) && n.endsWith(suffix))
      .map((n) => n.slice(prefix.length, n.length - suffix.length))
      .filter((id) => isTenant(id) && (after === undefined || compareTenantIds(id, after) > 0))
      .sort(compareTenantIds);
    return tenantPage(
      ids.slice(0, limit + 1).map((id) => ({ id })),
      limit,
    );
  };
}
