/**
 * Mount tables outside code (SPEC §8): a JSON file shaped like `mountStores`' table, with a store URL in
 * place of each store, read and opened here so that every surface (CLI, MCP, console) gets mounts at once.
 */
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import {
  InMemoryStore,
  type MemoryStore,
  type MountAccess,
  type MountTable,
  mountStores,
  type QuotaOptions,
  type SensitiveOptions,
} from "@mem/core";
import { StoreUrlError } from "./errors.js";
import { type OpenStoreOptions, openStore, scopeTo } from "./open.js";
import { TenantUrlStore } from "./tenant-url.js";

/** One mount of a mount table file: a store URL instead of a store. */
export interface MountFileEntry {
  /** A store URL (see `parseStoreUrl`); relative `fs:` and `sqlite:` paths are read from the file's folder. `{tenant}` makes the mount per-tenant. */
  url: string;
  access?: MountAccess;
  instructions?: string;
  /** The mount's own quota (`{ "maxFiles": 100, "maxTotalBytes": 1000000 }`), as in `mountStores`. */
  quota?: QuotaOptions;
  /** The mount's own sensitive-data guard (`false`, or `{ "mode": "redact", "detectors": { ... } }`). */
  guard?: SensitiveOptions | false;
}

/** The placeholder a per-tenant mount's URL holds. */
export const TENANT_PLACEHOLDER = "{tenant}";

const KEYS = new Set(["url", "access", "instructions", "quota", "guard"]);

const problem = (file: string, what: string): StoreUrlError =>
  new StoreUrlError(`Mount table ${file}: ${what}`);

/**
 * Checks the parsed contents of a mount table file: an object of mount points, each `{ url, access?,
 * instructions?, quota?, guard? }`. Throws `StoreUrlError` naming the mount otherwise (mount points themselves are checked
 * by `mountStores`).
 */
export function parseMountTable(value: unknown, file = "mounts.json"): Record<string, MountFileEntry> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw problem(
      file,
      'must hold a JSON object of mount points, e.g. { "/memories": { "url": "sqlite:./me.db" } }',
    );
  }
  for (const [mount, entry] of Object.entries(value)) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw problem(file, `the mount ${JSON.stringify(mount)} must be an object with a url`);
    }
    const unknown = Object.keys(entry).find((k) => !KEYS.has(k));
    if (unknown !== undefined) {
      throw problem(
        file,
        `the mount ${JSON.stringify(mount)} has an unknown field ${JSON.stringify(unknown)} (use url, access, instructions, quota, guard)`,
      );
    }
    if (typeof (entry as { url?: unknown }).url !== "string" || (entry as { url: string }).url === "") {
      throw problem(file, `the mount ${JSON.stringify(mount)} needs a url (a store URL)`);
    }
  }
  return value as Record<string, MountFileEntry>;
}

export interface OpenMountsOptions extends OpenStoreOptions {
  /** Opens this tenant's view of the table: every per-tenant mount scoped to it, shared mounts as they are. */
  tenant?: string;
}

/**
 * Reads the mount table file `file` (resolved against `options.cwd`) and opens every store it names with
 * `openStore`, relative paths resolved against the file's folder: the `MountedStore` of `mountStores`. A
 * URL holding `{tenant}` makes its mount per-tenant: `?tenant={tenant}` scopes one store (its `tenants()`
 * and `purge()` work), `{tenant}` anywhere else opens one store per tenant (`sqlite:./users/{tenant}.db`).
 * With `tenant`, returns that tenant's scope. Throws `StoreUrlError` for a bad file or table, and what
 * `openStore` throws; stores already opened are closed on failure.
 *
 * @example
 * ```ts
 * import { executeCommand } from "@mem/core";
 * import { openMounts } from "@mem/open";
 *
 * const memory = await openMounts("./mounts.json", { tenant: "alice" });
 * await executeCommand(memory, { command: "view", path: "/memories" });
 * await memory.close?.();
 * ```
 */
export async function openMounts(file: string, options: OpenMountsOptions = {}): Promise<MemoryStore> {
  const { tenant, ...open } = options;
  const path = resolve(open.cwd ?? process.cwd(), file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw problem(file, code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? "unknown error"})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the mistake, which may hold a password.
    throw problem(file, "is not valid JSON");
  }
  const entries = Object.entries(parseMountTable(value, file));
  // The table's mount points and access are checked before any store is opened (or created).
  checkTable(
    file,
    Object.fromEntries(entries.map(([mount, entry]) => [mount, mountOf(new InMemoryStore(), entry, false)])),
  );
  const context = { ...open, cwd: dirname(path) };
  const opened: MemoryStore[] = [];
  try {
    const table: Record<string, MountTable[string]> = {};
    for (const [mount, entry] of entries) {
      const perTenantMount = entry.url.includes(TENANT_PLACEHOLDER);
      let store = perTenantMount ? await perTenant(entry.url, context) : await openStore(entry.url, context);
      opened.push(store);
      // One tenant's table: its scope of each per-tenant mount, whose close() closes the store too.
      if (perTenantMount && tenant !== undefined) store = await scopeTo(store, tenant, `the mount ${mount}`);
      table[mount] = mountOf(store, entry, perTenantMount);
    }
    return checkTable(file, table);
  } catch (error) {
    await Promise.allSettled(opened.map((s) => s.close?.()));
    throw error;
  }
}

const mountOf = (store: MemoryStore, entry: MountFileEntry, perTenant: boolean): MountTable[string] => ({
  store,
  perTenant,
  ...(entry.access === undefined ? {} : { access: entry.access }),
  ...(entry.instructions === undefined ? {} : { instructions: entry.instructions }),
  ...(entry.quota === undefined ? {} : { quota: entry.quota }),
  ...(entry.guard === undefined ? {} : { guard: entry.guard }),
});

/** `mountStores(table)`, its `TypeError` as a `StoreUrlError` naming the file. */
const checkTable = (file: string, table: MountTable) => {
  try {
    return mountStores(table);
  } catch (error) {
    throw error instanceof TypeError ? problem(file, error.message.replace(/^mountStores: /, "")) : error;
  }
};

const QUERY_TENANT = `tenant=${TENANT_PLACEHOLDER}`;

/** `url` without its `?tenant={tenant}`, or `url` itself when the placeholder sits elsewhere. */
const withoutTenantQuery = (url: string): string => {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const params = url.slice(q + 1).split("&");
  const kept = params.filter((p) => p !== QUERY_TENANT);
  return kept.length === params.length
    ? url
    : `${url.slice(0, q)}${kept.length > 0 ? `?${kept.join("&")}` : ""}`;
};

/** A per-tenant mount: one store scoped per tenant (`?tenant={tenant}`), or one store per tenant. */
async function perTenant(url: string, context: OpenStoreOptions): Promise<MemoryStore> {
  const base = withoutTenantQuery(url);
  if (!base.includes(TENANT_PLACEHOLDER)) {
    const store = await openStore(base, context);
    if (!store.scope) {
      await store.close?.();
      throw new StoreUrlError(`Mount table: ${TENANT_PLACEHOLDER} needs a store with tenant scopes`);
    }
    return store;
  }
  return new TenantUrlStore(url, (u) => openStore(u, context), context.cwd);
}
