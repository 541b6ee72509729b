import { rmdirSync, unlinkSync } from "node:fs";
import { Budget } from "./budget.js";
import type { Dir } from "./dir.js";
import { errnoOf, toStoreFailure } from "./failure.js";
import { removeAbandonedMarkers } from "./lock.js";
import { isReservedName, LOCK_TEMP_PREFIX, MARKER_PREFIX, pidOfLockTemp, TEMP_PREFIX } from "./names.js";
import { pidAlive } from "./process-identity.js";
import { Pace, type TreeVisitor, walkTree, withChild } from "./walk.js";

/** Runs `call`, treating the given errno codes as success. */
const ignoring = (call: () => void, ...codes: string[]): void => {
  try {
    call();
  } catch (error) {
    const code = errnoOf(error);
    if (code === undefined || !codes.includes(code)) throw toStoreFailure(error);
  }
};

/**
 * Cleans what a process killed while holding the lock can leave behind: temporary files of unfinished
 * writes, lock candidates of dead processes, and directories left empty by an unfinished create, delete
 * or rename (directories are implicit, so an empty one is only a leftover), and markers of finished
 * takeovers. Runs under the lock, right
 * after taking it over from a dead holder. Symbolic links are neither followed nor removed.
 */
export const removeCrashLeftovers = async (root: Dir, staleMs: number): Promise<void> => {
  const markers: string[] = [];
  const visitor: TreeVisitor = {
    entry: async (dir, _path, entry) => {
      const { name } = entry;
      const isRoot = dir === root;
      if (name.startsWith(TEMP_PREFIX)) {
        // An unfinished write's file, or the remainder of an unfinished directory delete.
        if (entry.isDirectory()) await removeTree(dir, name);
        else ignoring(() => unlinkSync(dir.at(name)), "ENOENT");
      } else if (isRoot && name.startsWith(MARKER_PREFIX)) {
        markers.push(name);
      } else if (isRoot && name.startsWith(LOCK_TEMP_PREFIX)) {
        const pid = pidOfLockTemp(name);
        if (pid !== null && !pidAlive(pid)) ignoring(() => unlinkSync(dir.at(name)), "ENOENT");
      } else if (entry.isDirectory() && !isReservedName(name)) {
        return true;
      }
      return false;
    },
    left: (dir, name) => ignoring(() => rmdirSync(dir.at(name)), "ENOTEMPTY", "EEXIST", "ENOENT", "ENOTDIR"),
    done: (dir) => dir.sync(),
  };
  await walkTree(root, "", visitor, new Budget(16));
  await removeAbandonedMarkers(root, markers, staleMs);
};

/** Removes everything inside `dir` without following links (a link is removed, its target untouched). */
export const removeContents = async (dir: Dir): Promise<void> => {
  const pace = new Pace();
  const visitor: TreeVisitor = {
    entry: async (current, _path, entry) => {
      if (entry.isDirectory()) return true;
      await pace.step();
      try {
        unlinkSync(current.at(entry.name));
      } catch (error) {
        // Unknown entry types (DT_UNKNOWN) that turn out to be directories are removed as directories.
        const code = errnoOf(error);
        if ((code === "EISDIR" || code === "EPERM") && (await current.kindOf(entry.name)) === "directory") {
          return true;
        }
        if (code !== "ENOENT") throw toStoreFailure(error);
      }
      return false;
    },
    left: (current, name) => ignoring(() => rmdirSync(current.at(name)), "ENOENT"),
  };
  await walkTree(dir, "", visitor, new Budget(16));
};

/** Removes directory `name` of `parent` with everything inside, links removed but never followed. */
export const removeTree = async (parent: Dir, name: string): Promise<void> => {
  await withChild(parent, name, removeContents);
  ignoring(() => rmdirSync(parent.at(name)), "ENOENT");
};
