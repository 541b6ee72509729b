/** A file or directory renamed under the lock. */
import { lutimesSync, renameSync } from "node:fs";
import {
  AlreadyExistsError,
  type Expiry,
  isSameOrInside,
  NotFoundError,
  StoreFailureError,
  segmentsOf,
} from "@mem/core";
import { blockedError, descend, reap } from "./descend.js";
import { createdDirs, type Dir, pruneCreated, pruneEmpty, releaseDescent, syncAll } from "./dir.js";
import { specialFileRefused, symlinkRefused } from "./failure.js";
import { touchAll } from "./files.js";
import { withChild } from "./walk.js";

/** Moves `from` to `to` under the lock held on `root`, never through or onto a link. */
export const renameIn = async (root: Dir, from: string, to: string, expiry: Expiry | null): Promise<void> => {
  const fromSegments = segmentsOf(from);
  const toSegments = segmentsOf(to);
  const fromParentSegments = fromSegments.slice(0, -1);
  const toParentSegments = toSegments.slice(0, -1);
  const fromName = fromSegments.at(-1)!;
  const toName = toSegments.at(-1)!;
  await reap(root, fromSegments, expiry);
  await reap(root, toSegments, expiry);
  const source = await descend(root, fromParentSegments, false);
  try {
    if (source.blocked) throw new NotFoundError(from);
    const sourceParent = source.dirs.at(-1)!;
    const stats = await sourceParent.lstat(fromName);
    if (!stats) throw new NotFoundError(from);
    if (stats.isSymbolicLink()) throw symlinkRefused();
    if (!stats.isFile() && !stats.isDirectory()) throw specialFileRefused();
    if (stats.isDirectory() && isSameOrInside(to, from)) {
      throw new StoreFailureError("a directory cannot be moved into itself");
    }
    const target = await descend(root, toParentSegments, true);
    let done = false;
    try {
      if (target.blocked) throw blockedError(to, toParentSegments, target.blocked);
      const targetParent = target.dirs.at(-1)!;
      if (await targetParent.lstat(toName)) throw new AlreadyExistsError(to);
      renameSync(sourceParent.at(fromName), targetParent.at(toName));
      done = true;
      if (expiry) {
        // A move is an access (SPEC §7): of the file, or of every file beneath the directory.
        const now = expiry.now();
        if (stats.isFile()) lutimesSync(targetParent.at(toName), now / 1000, now / 1000);
        else await withChild(targetParent, toName, (moved) => touchAll(moved, now));
      }
      // Both parents hold half of the move; they may be the same directory, synced twice at once.
      await syncAll([targetParent, sourceParent, ...createdDirs(target)]);
      await pruneEmpty(source.dirs, fromParentSegments);
    } finally {
      if (!done) await pruneCreated(target, toParentSegments);
      await releaseDescent(target);
    }
  } finally {
    await releaseDescent(source);
  }
};
