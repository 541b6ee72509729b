/** A file or directory deleted under the lock. */
import { renameSync, unlinkSync } from "node:fs";
import type { Expiry } from "@mem/core";
import { descend, reap } from "./descend.js";
import { type Dir, pruneEmpty, releaseDescent } from "./dir.js";
import { tempName } from "./names.js";
import { removeTree } from "./recovery.js";
import { countFiles, totalsOf } from "./totals.js";
import { withChild } from "./walk.js";

/**
 * Deletes `segments` (a file, or a directory with everything beneath it) under the lock held on `root`;
 * false when nothing is there.
 */
export const deleteIn = async (
  root: Dir,
  segments: readonly string[],
  expiry: Expiry | null,
): Promise<boolean> => {
  const parentSegments = segments.slice(0, -1);
  const name = segments.at(-1)!;
  await reap(root, segments, expiry);
  const descent = await descend(root, parentSegments, false);
  try {
    if (descent.blocked) return false;
    const parent = descent.dirs.at(-1)!;
    const stats = await parent.lstat(name);
    if (!stats) return false;
    const totals = totalsOf(root);
    const gone = { files: stats.isFile() ? 1 : 0, bytes: stats.isFile() ? stats.size : 0 };
    if (stats.isDirectory() && totals) {
      await withChild(parent, name, async (child) => {
        Object.assign(gone, await countFiles(child));
      });
    }
    if (stats.isDirectory()) {
      // Renamed to a reserved name first, so that the directory vanishes from view in one step: a
      // crash part-way leaves only a hidden remainder, which recovery removes.
      const doomed = tempName();
      renameSync(parent.at(name), parent.at(doomed));
      try {
        await removeTree(parent, doomed);
      } catch (error) {
        try {
          renameSync(parent.at(doomed), parent.at(name));
        } catch {
          // The failure that matters is the one being reported; recovery removes the remainder.
        }
        throw error;
      }
    } else {
      // Files, and links or special files placed by someone else: the entry goes, a link's target stays.
      unlinkSync(parent.at(name));
    }
    totals?.add(-gone.files, -gone.bytes);
    await parent.sync();
    await pruneEmpty(descent.dirs, parentSegments);
    return true;
  } finally {
    await releaseDescent(descent);
  }
};
