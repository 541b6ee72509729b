import { rmdirSync, unlinkSync } from "node:fs";
import { Budget, forEachWithBudget } from "./budget.js";
import type { Dir } from "./dir.js";
import { errnoOf, toStoreFailure } from "./failure.js";
import { removeAbandonedMarkers } from "./lock.js";
import { isReservedName, LOCK_TEMP_PREFIX, MARKER_PREFIX, pidOfLockTemp, TEMP_PREFIX } from "./names.js";
import { pidAlive } from "./process-identity.js";
import { Pace, readEntries, withChild } from "./walk.js";

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
  const budget = new Budget(16);
  const markers: string[] = [];
  const visit = async (dir: Dir, isRoot: boolean): Promise<void> => {
    const subdirs: string[] = [];
    for (const entry of await readEntries(dir)) {
      const { name } = entry;
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
        subdirs.push(name);
      }
    }
    await forEachWithBudget(subdirs, budget, async (name) => {
      await withChild(dir, name, (child) => visit(child, false));
      ignoring(() => rmdirSync(dir.at(name)), "ENOTEMPTY", "EEXIST", "ENOENT", "ENOTDIR");
    });
    await dir.sync();
  };
  await visit(root, true);
  await removeAbandonedMarkers(root, markers, staleMs);
};

/** Removes everything inside `dir` without following links (a link is removed, its target untouched). */
export const removeContents = async (dir: Dir): Promise<void> => {
  const budget = new Budget(16);
  const pace = new Pace();
  const visit = async (current: Dir): Promise<void> => {
    const subdirs: string[] = [];
    for (const entry of await readEntries(current)) {
      if (entry.isDirectory()) subdirs.push(entry.name);
      else {
        await pace.step();
        try {
          unlinkSync(current.at(entry.name));
        } catch (error) {
          // Unknown entry types (DT_UNKNOWN) that turn out to be directories are removed as directories.
          const code = errnoOf(error);
          if ((code === "EISDIR" || code === "EPERM") && (await current.kindOf(entry.name)) === "directory") {
            subdirs.push(entry.name);
          } else if (code !== "ENOENT") throw toStoreFailure(error);
        }
      }
    }
    await forEachWithBudget(subdirs, budget, async (name) => {
      await withChild(current, name, visit);
      ignoring(() => rmdirSync(current.at(name)), "ENOENT");
    });
  };
  await visit(dir);
};

/** Removes directory `name` of `parent` with everything inside, links removed but never followed. */
export const removeTree = async (parent: Dir, name: string): Promise<void> => {
  await withChild(parent, name, removeContents);
  ignoring(() => rmdirSync(parent.at(name)), "ENOENT");
};
