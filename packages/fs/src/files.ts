/**
 * Walks over every file of a root (hidden ones included, the store's own reserved names left out): the
 * usage figure, expiry sweeps and access-time refreshes after a directory rename. Metadata only: no
 * file is ever opened.
 */
import { lutimesSync, rmdirSync, type Stats, unlinkSync } from "node:fs";
import { type Expiry, ROOT, type Usage } from "@mem/core";
import type { Dir } from "./dir.js";
import { errnoOf, toStoreFailure } from "./failure.js";
import { isReservedName } from "./names.js";
import { Pace, walkTree } from "./walk.js";

export interface FileVisit {
  dir: Dir;
  name: string;
  /** The file's canonical memory path. */
  path: string;
  stats: Stats;
}

/**
 * Calls `visit` for every regular file beneath `dir` (links and special files skipped, never followed),
 * depth first, one directory descriptor per level. With `pruneEmpty`, a subdirectory left empty after
 * its visit is removed (directories are implicit).
 */
export const forEachFile = async (
  dir: Dir,
  dirPath: string,
  visit: (file: FileVisit) => void,
  pruneEmpty = false,
): Promise<void> => {
  const pace = new Pace();
  await walkTree(dir, dirPath, {
    entry: async (current, currentPath, entry) => {
      if (isReservedName(entry.name) || entry.isSymbolicLink()) return false;
      if (entry.isDirectory()) return true;
      const stats = current.lstatNow(entry.name);
      await pace.step();
      if (stats?.isFile())
        visit({ dir: current, name: entry.name, path: `${currentPath}/${entry.name}`, stats });
      return stats?.isDirectory() === true;
    },
    ...(pruneEmpty ? { left: removeIfEmpty } : {}),
  });
};

const removeIfEmpty = (dir: Dir, name: string): void => {
  try {
    rmdirSync(dir.at(name));
  } catch (error) {
    const code = errnoOf(error);
    if (code !== "ENOTEMPTY" && code !== "EEXIST" && code !== "ENOENT" && code !== "ENOTDIR")
      throw toStoreFailure(error);
  }
};

/** Whether a live (not expired) regular file lies beneath `dir`. */
export const holdsLiveFile = async (dir: Dir, expiry: Expiry): Promise<boolean> => {
  const now = expiry.now();
  let found = false;
  await walkTree(dir, "", {
    stop: () => found,
    entry: (current, _path, entry) => {
      if (isReservedName(entry.name) || entry.isSymbolicLink()) return false;
      const stats = current.lstatNow(entry.name);
      if (stats?.isFile()) found = !expiry.isExpired(stats.mtimeMs, now);
      return stats?.isDirectory() === true;
    },
  });
  return found;
};

/** Removes the expired files beneath `dir` and the directories they leave empty; returns what went. */
export const removeExpired = async (
  dir: Dir,
  dirPath: string,
  expiry: Expiry,
): Promise<{ paths: string[]; bytes: number }> => {
  const now = expiry.now();
  const removed = { paths: [] as string[], bytes: 0 };
  await forEachFile(
    dir,
    dirPath,
    ({ dir: parent, name, path, stats }) => {
      if (!expiry.isExpired(stats.mtimeMs, now)) return;
      try {
        unlinkSync(parent.at(name));
      } catch (error) {
        if (errnoOf(error) === "ENOENT") return;
        throw toStoreFailure(error);
      }
      removed.paths.push(path);
      removed.bytes += stats.size;
    },
    true,
  );
  return removed;
};

/** Sets the access time (the modification time, see the README) of every file beneath `dir` to `ms`. */
export const touchAll = async (dir: Dir, ms: number): Promise<void> => {
  await forEachFile(dir, "", ({ dir: parent, name }) => lutimesSync(parent.at(name), ms / 1000, ms / 1000));
};

/** Files and bytes beneath `root`, counted by a walk over their metadata (expired ones left out). */
export const usageOf = async (root: Dir, expiry: Expiry | null): Promise<Usage> => {
  const now = expiry?.now() ?? 0;
  const usage: Usage = { files: 0, bytes: 0 };
  await forEachFile(root, ROOT, ({ stats }) => {
    if (expiry?.isExpired(stats.mtimeMs, now)) return;
    usage.files += 1;
    usage.bytes += stats.size;
  });
  return usage;
};
