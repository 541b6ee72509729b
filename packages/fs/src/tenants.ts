/**
 * `tenants()` and `purge()` of `FsStore`: a tenant is the directory `{root}/.~mem-tenants/{id}`. Both work
 * on paths beneath the root, never following a link (entries are `lstat`ed; links are neither counted
 * nor followed, and `rm` unlinks them).
 */
import { lstat, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { compareTenantIds, type PurgeResult, type TenantInfo, type TenantPage, tenantPage } from "@mem/core";
import { errnoOf } from "./failure.js";
import { isReservedName, RESERVED_PREFIX, TENANTS_DIR } from "./names.js";

/** A tenant directory being erased: `{tenants}/.~mem-purge-{id}~{pid}-{time}`, renamed
 * away in one step (`~` is never part of an id, so no grave of `a` looks like one of `a.b`). */
const GRAVE_PREFIX = `${RESERVED_PREFIX}purge-`;

const VALID_ID = /^[A-Za-z0-9._@+-]{1,128}$/;

interface Totals {
  files: number;
  bytes: number;
  lastAccess: number;
  /** A file anywhere beneath, nested tenants included. */
  holds: boolean;
}

const entriesOf = async (dir: string): Promise<string[]> => {
  try {
    return await readdir(dir);
  } catch (error) {
    if (errnoOf(error) === "ENOENT" || errnoOf(error) === "ENOTDIR") return [];
    throw error;
  }
};

/**
 * Files, bytes and newest modification of the files of one root (its own; nested tenants only set
 * `holds`). Reserved names are bookkeeping and not counted. Expired files are counted: they are on the
 * medium until reclaimed, and their times are what `mem sweep --tenants` judges a tenant by.
 */
async function measure(dir: string, own: boolean, into: Totals): Promise<void> {
  for (const name of await entriesOf(dir)) {
    const path = join(dir, name);
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(path);
    } catch (error) {
      if (errnoOf(error) === "ENOENT") continue;
      throw error;
    }
    if (stats.isDirectory()) {
      await measure(path, own && name !== TENANTS_DIR, into);
    } else if (stats.isFile() && !isReservedName(name)) {
      into.holds = true;
      if (!own) continue;
      into.files += 1;
      into.bytes += stats.size;
      into.lastAccess = Math.max(into.lastAccess, stats.mtimeMs);
    }
  }
}

/**
 * The tenants of the root at `root` that hold a file (their own or a nested tenant's), in byte
 * order: one `readdir` of the tenants directory, then a metadata walk of the page's tenants only.
 * `lastAccess` is the newest modification time of a tenant's files, which is the access time expiry
 * keeps (reads touch files when expiry is on).
 */
export async function listTenants(
  root: string,
  after: string | undefined,
  limit: number,
): Promise<TenantPage> {
  const tenantsDir = join(root, TENANTS_DIR);
  const ids = (await entriesOf(tenantsDir))
    .filter((name) => VALID_ID.test(name) && name !== "." && name !== "..")
    .filter((id) => after === undefined || compareTenantIds(id, after) > 0)
    .sort(compareTenantIds);
  const found: TenantInfo[] = [];
  for (const id of ids) {
    const totals: Totals = { files: 0, bytes: 0, lastAccess: 0, holds: false };
    await measure(join(tenantsDir, id), true, totals);
    if (!totals.holds) continue;
    found.push(
      totals.lastAccess > 0
        ? { id, files: totals.files, bytes: totals.bytes, lastAccess: Math.floor(totals.lastAccess) }
        : { id, files: totals.files, bytes: totals.bytes },
    );
    if (found.length > limit) break;
  }
  return tenantPage(found, limit);
}

/** Every regular file beneath `dir` but the store's bookkeeping, nested tenants included. */
async function countAll(dir: string, into: { files: number; bytes: number }): Promise<void> {
  for (const name of await entriesOf(dir)) {
    const path = join(dir, name);
    const stats = await lstat(path).catch((error: unknown) => {
      if (errnoOf(error) === "ENOENT") return null;
      throw error;
    });
    if (stats?.isDirectory()) await countAll(path, into);
    else if (stats?.isFile() && !isReservedName(name)) {
      into.files += 1;
      into.bytes += stats.size;
    }
  }
}

/**
 * Erases the tenant whose root is `{tenantsDir}/{id}`: the directory is renamed to a grave name in one
 * step (so no later command of the tenant finds anything of it, and writers still holding the old
 * directory write into the grave), then the grave is removed with everything in it. Graves an
 * interrupted purge left behind are removed first, so running it again completes.
 */
export async function purgeTenant(tenantsDir: string, id: string, dryRun: boolean): Promise<PurgeResult> {
  const root = join(tenantsDir, id);
  const totals = { files: 0, bytes: 0 };
  const graves = (await entriesOf(tenantsDir)).filter((name) => name.startsWith(`${GRAVE_PREFIX}${id}~`));
  for (const grave of graves) await countAll(join(tenantsDir, grave), totals);
  await countAll(root, totals);
  if (dryRun) return totals;
  const grave = join(tenantsDir, `${GRAVE_PREFIX}${id}~${process.pid}-${Date.now().toString(36)}`);
  try {
    await rename(root, grave);
    graves.push(grave.slice(tenantsDir.length + 1));
  } catch (error) {
    if (errnoOf(error) !== "ENOENT") throw error;
  }
  for (const name of graves) await removeGrave(join(tenantsDir, name));
  return totals;
}

/** Removes a grave; a writer that still held the directory may add to it meanwhile, so it retries. */
async function removeGrave(grave: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rm(grave, { recursive: true, force: true });
      return;
    } catch (error) {
      if (attempt >= 20 || (errnoOf(error) !== "ENOTEMPTY" && errnoOf(error) !== "EEXIST")) throw error;
    }
  }
}
