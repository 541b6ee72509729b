/**
 * Walks over every file of a root (hidden ones included, the store's own reserved names left out): the
 * usage figure, expiry sweeps and access-time refreshes after a directory rename. Metadata only: no
 * file is ever opened.
 */
import { lutimesSync, rmdirSync, type Stats, unlinkSync } from "node:fs";
import type { Expiry } from "@mem/core";
import type { Dir } from "./dir.js";
import { errnoOf, toStoreFailure } from "./failure.js";
import { isReservedName } from "./names.js";
import { Pace, readEntries, withChild } from "./walk.js";

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
  const walk = async (current: Dir, currentPath: string): Promise<void> => {
    const subdirs: string[] = [];
    for (const entry of await readEntries(current)) {
      if (isReservedName(entry.name) || entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) {
        subdirs.push(entry.name);
        continue;
      }
      const stats = current.lstatNow(entry.name);
      await pace.step();
      if (stats?.isFile())
        visit({ dir: current, name: entry.name, path: `${currentPath}/${entry.name}`, stats });
      else if (stats?.isDirectory()) subdirs.push(entry.name);
    }
    for (const name of subdirs) {
      await withChild(current, name, (child) => walk(child, `${currentPath}/${name}`));
      if (pruneEmpty) removeIfEmpty(current, name);
    }
  };
  await walk(dir, dirPath);
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
  const walk = async (current: Dir): Promise<void> => {
    for (const entry of await readEntries(current)) {
      if (found) return;
      if (isReservedName(entry.name) || entry.isSymbolicLink()) continue;
      const stats = current.lstatNow(entry.name);
      if (stats?.isFile()) found = !expiry.isExpired(stats.mtimeMs, now);
      else if (stats?.isDirectory()) await withChild(current, entry.name, walk);
    }
  };
  await walk(dir);
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
