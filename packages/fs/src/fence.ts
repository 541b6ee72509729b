/**
 * The erasure fence of a tenant (SPEC §7), as a file beside the tenant's directory, so that it holds for
 * every process on the root: `{tenants}/.~mem-fence-{id}`. `purge()` creates it before it renames the
 * tenant's directory away and removes it when the grave is gone. A change of the tenant, or of a tenant
 * nested in it, looks for the fences of its root's chain of tenants, before it opens the root and again
 * under the root's cross-process lock, and is refused with `ErasingError` while one is there. A purge that
 * stopped midway leaves its fence (the tenant refuses changes); running it again removes it.
 */
import { closeSync, lstatSync, unlinkSync } from "node:fs";
import { join, sep } from "node:path";
import { errnoOf } from "./failure.js";
import { createPrivateFile } from "./io.js";
import { RESERVED_PREFIX, TENANTS_DIR } from "./names.js";

const fenceOf = (tenantsDir: string, id: string): string => join(tenantsDir, `${RESERVED_PREFIX}fence-${id}`);

/** Puts the fence of tenant `id` (whose directory is `{tenantsDir}/{id}`) up; it may be up already. */
export const raiseFence = (tenantsDir: string, id: string): void => {
  try {
    closeSync(createPrivateFile(fenceOf(tenantsDir, id)));
  } catch (error) {
    if (errnoOf(error) !== "EEXIST") throw error;
  }
};

export const lowerFence = (tenantsDir: string, id: string): void => {
  try {
    unlinkSync(fenceOf(tenantsDir, id));
  } catch (error) {
    if (errnoOf(error) !== "ENOENT") throw error;
  }
};

/** Whether the tenant rooted at `root`, or a tenant it is nested in, is fenced (never follows a fence link). */
export const isFenced = (root: string): boolean => {
  const marker = `${sep}${TENANTS_DIR}${sep}`;
  const parts = root.split(marker);
  for (let i = 1; i < parts.length; i++) {
    const tenantsDir = `${parts.slice(0, i).join(marker)}${sep}${TENANTS_DIR}`;
    const id = (parts[i] ?? "").split(sep, 1)[0] ?? "";
    if (lstatSync(fenceOf(tenantsDir, id), { throwIfNoEntry: false }) !== undefined) return true;
  }
  return false;
};
