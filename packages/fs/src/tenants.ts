/**
 * `tenants()` and `purge()` of `FsStore`: a tenant is the directory `{root}/.~mem-tenants/{id}`. Both
 * measure tenants with the store's one walk, `walkTree` (walk.ts), so links are neither counted nor
 * followed; `purge` then renames the tenant away and `rm` unlinks what was in it.
 */
import { lstatSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { compareTenantIds, type PurgeResult, type TenantInfo, type TenantPage, tenantPage } from "@mem/core";
import { Dir, type Resolution } from "./dir.js";
import { errnoOf } from "./failure.js";
import { lowerFence, raiseFence } from "./fence.js";
import { isReservedName, RESERVED_PREFIX, TENANTS_DIR } from "./names.js";
import { directoryCalls, isSpecial, Pace, readEntries, walkTree, withChild } from "./walk.js";

/** A tenant directory being erased: `{tenants}/.~mem-purge-{id}~{pid}-{time}`, renamed
 * away in one step (`~` is never part of an id, so no grave of `a` looks like one of `a.b`). */
const GRAVE_PREFIX = `${RESERVED_PREFIX}purge-`;

const VALID_ID = /^[A-Za-z0-9._@+-]{1,128}$/;

interface Totals {
  /** The tenant's own files (nested tenants' left out), their bytes and newest modification. */
  files: number;
  bytes: number;
  lastAccess: number;
  /** Every file beneath, nested tenants' included. */
  allFiles: number;
  allBytes: number;
}

const noTotals = (): Totals => ({ files: 0, bytes: 0, lastAccess: 0, allFiles: 0, allBytes: 0 });

/** Opens the directory at `path` (a link-free path) without following a link; null when nothing is there. */
const openIfPresent = async (path: string, resolution: Resolution): Promise<Dir | null> => {
  try {
    return await Dir.openRoot(path, resolution);
  } catch (error) {
    if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return null;
    throw error;
  }
};

/** Runs `task` on the directory at `path`, if there is one, and closes it. */
const inDirectory = async (path: string, resolution: Resolution, task: (dir: Dir) => Promise<void>) => {
  const dir = await openIfPresent(path, resolution);
  if (!dir) return;
  try {
    await task(dir);
  } finally {
    await dir.close();
  }
};

/**
 * Adds up the regular files beneath tenant directory `name` of `dir` into `into`; nested tenants'
 * files count in the `all` figures only. Reserved names are bookkeeping and not counted, but reserved
 * directories are walked (a nested tenant's files are beneath them). Expired files are counted: they
 * are on the medium until reclaimed, and their times are what `mem sweep --tenants` judges a tenant by.
 * A tenant that is a link or not a directory holds nothing.
 */
const measure = (dir: Dir, name: string, into: Totals): Promise<void> =>
  withChild(dir, name, async (tenant) => {
    const pace = new Pace();
    /** Memory paths of the directories beneath the tenant that belong to a nested tenant. */
    const nested = new Set<string>();
    const descend = (path: string, child: string): true => {
      if (nested.has(path) || child === TENANTS_DIR) nested.add(`${path}/${child}`);
      return true;
    };
    await walkTree(tenant, "", {
      listed: (count) => pace.step(directoryCalls(count)),
      entry: async (current, path, entry) => {
        if (entry.isSymbolicLink() || isSpecial(entry)) return false;
        if (entry.isDirectory()) return descend(path, entry.name);
        // Regular files need their size and time; entries of unknown type (some file systems report none) need a look.
        const stats = current.lstatNow(entry.name);
        await pace.step();
        if (stats?.isDirectory()) return descend(path, entry.name);
        if (!stats?.isFile() || isReservedName(entry.name)) return false;
        const own = !nested.has(path);
        into.allFiles += 1;
        into.allBytes += stats.size;
        if (own) {
          into.files += 1;
          into.bytes += stats.size;
          into.lastAccess = Math.max(into.lastAccess, stats.mtimeMs);
        }
        return false;
      },
    });
  });

/**
 * The tenants of the root at `root` that hold a file (their own or a nested tenant's), in byte
 * order: one `readdir` of the tenants directory, then a metadata walk of the page's tenants only.
 * `lastAccess` is the newest modification time of a tenant's files, which is the access time expiry
 * keeps (reads touch files when expiry is on).
 */
export async function listTenants(
  root: string,
  resolution: Resolution,
  after: string | undefined,
  limit: number,
): Promise<TenantPage> {
  const found: TenantInfo[] = [];
  await inDirectory(join(root, TENANTS_DIR), resolution, async (tenantsDir) => {
    const ids = (await readEntries(tenantsDir))
      .map((entry) => entry.name)
      .filter((name) => VALID_ID.test(name) && name !== "." && name !== "..")
      .filter((id) => after === undefined || compareTenantIds(id, after) > 0)
      .sort(compareTenantIds);
    for (const id of ids) {
      const totals = noTotals();
      await measure(tenantsDir, id, totals);
      if (totals.allFiles === 0) continue;
      found.push(
        totals.lastAccess > 0
          ? { id, files: totals.files, bytes: totals.bytes, lastAccess: Math.floor(totals.lastAccess) }
          : { id, files: totals.files, bytes: totals.bytes },
      );
      if (found.length > limit) break;
    }
  });
  return tenantPage(found, limit);
}

/**
 * Erases the tenant whose root is `{tenantsDir}/{id}`, its erasure fence up meanwhile (fence.ts): the
 * directory is renamed to a grave name in one
 * step (so no later command of the tenant finds anything of it, and writers still holding the old
 * directory write into the grave), then the grave is removed with everything in it. Graves an
 * interrupted purge left behind are removed first, so running it again completes.
 */
export async function purgeTenant(
  tenantsDir: string,
  id: string,
  resolution: Resolution,
  dryRun: boolean,
): Promise<PurgeResult> {
  const root = join(tenantsDir, id);
  const totals = noTotals();
  const graves: string[] = [];
  await inDirectory(tenantsDir, resolution, async (dir) => {
    for (const entry of await readEntries(dir))
      if (entry.name.startsWith(`${GRAVE_PREFIX}${id}~`)) graves.push(entry.name);
    for (const name of [...graves, id]) await measure(dir, name, totals);
  });
  if (dryRun) return { files: totals.allFiles, bytes: totals.allBytes };
  raiseFence(tenantsDir, id);
  const grave = join(tenantsDir, `${GRAVE_PREFIX}${id}~${process.pid}-${Date.now().toString(36)}`);
  try {
    await rename(root, grave);
    graves.push(grave.slice(tenantsDir.length + 1));
  } catch (error) {
    if (errnoOf(error) !== "ENOENT") throw error;
  }
  for (const name of graves) await removeGrave(join(tenantsDir, name));
  lowerFence(tenantsDir, id);
  return { files: totals.allFiles, bytes: totals.allBytes };
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
