/** The way down to a path: opening (or making) each directory, and what a change finds on it. */
import { fchmodSync, mkdirSync, unlinkSync } from "node:fs";
import { type Expiry, NotADirectoryError, pathOf, StoreFailureError } from "@mem/core";
import { type Descent, type Dir, pruneEmpty, releaseDescent } from "./dir.js";
import { errnoOf, toStoreFailure } from "./failure.js";
import { removeExpired } from "./files.js";
import { Pace } from "./walk.js";

/**
 * Opens every directory on the way to `segments`, never following a link (a link there is an error).
 * With `create`, missing directories are made (0700). The caller closes the result.
 */
export const descend = async (root: Dir, segments: readonly string[], create: boolean): Promise<Descent> => {
  const descent: Descent = { dirs: [root], createdFrom: -1 };
  // Paths may be 500 directories deep: the event loop runs between stretches of system calls.
  const pace = new Pace();
  try {
    for (const [index, name] of segments.entries()) {
      await pace.step(create ? 4 : 1);
      const parent = descent.dirs[index]!;
      let child = await parent.openChild(name);
      let made = false;
      if (child === "missing" && create) {
        try {
          mkdirSync(parent.at(name), { mode: 0o700 });
          made = true;
          if (descent.createdFrom < 0) descent.createdFrom = index;
        } catch (error) {
          if (errnoOf(error) !== "EEXIST") throw toStoreFailure(error);
        }
        child = await parent.openChild(name);
      }
      if (typeof child === "string") {
        descent.blocked = { kind: child, index };
        return descent;
      }
      descent.dirs.push(child);
      if (made) fchmodSync(child.fd, 0o700);
    }
    return descent;
  } catch (error) {
    await releaseDescent(descent);
    throw error;
  }
};

/** The error of a change whose parent directory could not be reached or made. */
export const blockedError = (
  path: string,
  parentSegments: readonly string[],
  blocked: NonNullable<Descent["blocked"]>,
): Error => {
  if (blocked.kind === "file")
    return new NotADirectoryError(path, pathOf(parentSegments.slice(0, blocked.index + 1)));
  // A directory created a moment ago vanished: only a process ignoring the lock can cause that.
  return new StoreFailureError("a directory vanished during the operation");
};

/**
 * Before a change: removes expired files on the way to `path` (an expired file where a directory is
 * needed) and beneath it, so the change meets only live files. Runs under the lock.
 */
export const reap = async (root: Dir, segments: readonly string[], expiry: Expiry | null): Promise<void> => {
  if (!expiry) return;
  const descent = await descend(root, segments, false);
  try {
    const { blocked } = descent;
    if (blocked?.kind === "file") {
      const parent = descent.dirs[blocked.index]!;
      const name = segments[blocked.index]!;
      const stats = parent.lstatNow(name);
      if (stats?.isFile() && expiry.isExpired(stats.mtimeMs)) {
        unlinkSync(parent.at(name));
        await parent.sync();
        await pruneEmpty(descent.dirs, segments.slice(0, blocked.index));
      }
    } else if (!blocked && segments.length > 0) {
      const removed = await removeExpired(descent.dirs.at(-1)!, pathOf(segments), expiry);
      if (removed.paths.length > 0) await pruneEmpty(descent.dirs, segments);
    }
  } finally {
    await releaseDescent(descent);
  }
};
