/** The mount table of `mountStores`: its types, and the checks that refuse a bad table at construction. */
import { validatePath } from "../path.js";
import { checkQuotaOptions, type QuotaOptions } from "../quota.js";
import { resolveGuard, type SensitiveOptions } from "../sensitive/guard.js";
import type { MemoryStore } from "../store.js";
import { isListedName, isSameOrInside, ROOT, segmentsOf } from "../tree.js";

/** What the model may do in a mount: everything (the default), or only view. */
export type MountAccess = "read_write" | "read_only";

/** One entry of a mount table: the store mounted, and what the model is told and allowed there. */
export interface MountOptions {
  /** The store that holds this mount's files; it sees paths relative to the mount point. */
  store: MemoryStore;
  /** `read_write` (default) or `read_only`: every write into a read-only mount is refused before any storage call. */
  access?: MountAccess;
  /** Told to the model after the memory prompt (`memorySystemPrompt({ mounts })`). */
  instructions?: string;
  /**
   * The mount holds one memory per tenant: `scope(tenant)` of the mounted table scopes this store,
   * `tenants()` lists its tenants and `purge()` erases them. Mounts without it are shared by every tenant
   * and never purged. Default `false`.
   */
  perTenant?: boolean;
  /**
   * This mount's own quota, measured on its store alone (per tenant, for a `perTenant` mount): a write
   * into the mount that would go beyond it is refused with SPEC §7's quota result, naming the path as
   * the model sees it. Checked after `executeCommand`'s `maxFiles`/`maxTotalBytes`, which keep limiting
   * the whole table. Unset: no limit of its own.
   */
  quota?: QuotaOptions;
  /**
   * The sensitive-data guard for writes into this mount, in place of `executeCommand`'s `sensitive`
   * option (same shape; `false` turns it off here). Unset: the table's guard.
   */
  guard?: SensitiveOptions | false;
}

/** Mount points (`/memories` and directories beneath it) → what is mounted there. */
export type MountTable = Readonly<Record<string, MountOptions>>;

/** A mount as the mounted store describes it (without its store). */
export interface MountInfo {
  /** The canonical mount point. */
  readonly path: string;
  readonly access: MountAccess;
  readonly instructions?: string;
  readonly perTenant: boolean;
}

/** A checked mount: its description and its store. */
export interface Mount extends MountInfo {
  readonly store: MemoryStore;
  readonly quota?: QuotaOptions;
  readonly guard?: SensitiveOptions | false;
}

const ACCESS: readonly string[] = ["read_write", "read_only"];

const refuse = (mount: string, why: string): TypeError =>
  new TypeError(`mountStores: the mount ${JSON.stringify(mount)} ${why}`);

/** The canonical mount point of `raw`, or the `TypeError` that names it. */
function mountPoint(raw: string, reserved: (name: string) => boolean): string {
  if (raw !== ROOT && raw.endsWith("/")) throw refuse(raw, "must not end with a slash");
  const checked = validatePath(raw, { isReservedName: reserved });
  if (!checked.ok) {
    throw refuse(
      raw,
      checked.error.includes("outside the memory directory")
        ? "is outside /memories"
        : `is not a valid path (${checked.error.replace(/^Error: /, "")})`,
    );
  }
  for (const name of segmentsOf(checked.path)) {
    if (!isListedName(name)) throw refuse(raw, "is hidden (a name starts with '.' or is node_modules)");
  }
  return checked.path;
}

/** The mount's `quota`, or the `TypeError` that names the mount and the option. */
const checkQuota = (raw: string, quota: unknown): QuotaOptions => {
  if (typeof quota !== "object" || quota === null || Array.isArray(quota)) {
    throw refuse(raw, "has a quota that is not an object { maxFiles?, maxTotalBytes? }");
  }
  try {
    checkQuotaOptions(quota as QuotaOptions);
  } catch (error) {
    throw refuse(raw, `has a bad quota: quota.${(error as Error).message}`);
  }
  const { maxFiles, maxTotalBytes } = quota as QuotaOptions;
  return {
    ...(maxFiles === undefined ? {} : { maxFiles }),
    ...(maxTotalBytes === undefined ? {} : { maxTotalBytes }),
  };
};

/** The mount's `guard`, resolved once here so that a bad one fails at construction. */
const checkGuard = (raw: string, guard: unknown): SensitiveOptions | false => {
  try {
    resolveGuard(guard as SensitiveOptions | false);
  } catch (error) {
    throw refuse(raw, `has a bad guard: ${(error as Error).message.replace(/^sensitive/, "guard")}`);
  }
  return guard as SensitiveOptions | false;
};

const checkEntry = (raw: string, entry: unknown): Omit<Mount, "path"> => {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw refuse(raw, "must be an object with a store");
  }
  const { store, access, instructions, perTenant, quota, guard } = entry as Record<string, unknown>;
  const candidate = store as Partial<MemoryStore> | null | undefined;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    typeof candidate.read !== "function" ||
    typeof candidate.write !== "function" ||
    typeof candidate.list !== "function"
  ) {
    throw refuse(raw, "needs a store (a MemoryStore)");
  }
  if (access !== undefined && (typeof access !== "string" || !ACCESS.includes(access))) {
    throw refuse(raw, 'has an unknown access (use "read_write" or "read_only")');
  }
  if (instructions !== undefined && typeof instructions !== "string") {
    throw refuse(raw, "has instructions that are not a string");
  }
  if (perTenant !== undefined && typeof perTenant !== "boolean") {
    throw refuse(raw, "has a perTenant that is not a boolean");
  }
  return {
    store: candidate as MemoryStore,
    access: (access as MountAccess | undefined) ?? "read_write",
    ...(instructions === undefined ? {} : { instructions }),
    perTenant: perTenant === true,
    ...(quota === undefined ? {} : { quota: checkQuota(raw, quota) }),
    ...(guard === undefined ? {} : { guard: checkGuard(raw, guard) }),
  };
};

/**
 * The checked mounts of `table`, longest mount point first (the routing order). Throws a `TypeError`
 * naming the mount for every problem: not an object, duplicates (also after NFC), no `/memories`, a
 * mount outside `/memories`, a hidden, reserved or invalid mount point, an unknown access.
 */
export function checkMountTable(table: unknown): Mount[] {
  if (typeof table !== "object" || table === null || Array.isArray(table)) {
    throw new TypeError("mountStores: the mount table must be an object of mount points");
  }
  const entries = Object.entries(table as Record<string, unknown>);
  const checked = entries.map(([raw, entry]) => ({ raw, ...checkEntry(raw, entry) }));
  const reserved = (name: string): boolean => checked.some((m) => m.store.isReservedName?.(name) === true);
  const mounts: Mount[] = [];
  const seen = new Map<string, string>();
  for (const { raw, ...mount } of checked) {
    const path = mountPoint(raw, reserved);
    const earlier = seen.get(path);
    if (earlier !== undefined) {
      throw refuse(raw, `is mounted twice (${JSON.stringify(earlier)} is the same mount point)`);
    }
    seen.set(path, raw);
    mounts.push({ path, ...mount });
  }
  if (!seen.has(ROOT)) throw new TypeError("mountStores: the mount table must mount /memories");
  return mounts.sort((a, b) => b.path.length - a.path.length);
}

/** The mount that owns `path`: the one with the longest mount point at or above it. */
export const ownerOf = (mounts: readonly Mount[], path: string): Mount => {
  for (const mount of mounts) if (isSameOrInside(path, mount.path)) return mount;
  // `/memories` is always mounted, and core hands stores only paths beneath it.
  throw new TypeError(`no mount holds ${path}`);
};
