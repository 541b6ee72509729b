import { type Dirent, readdirSync, type Stats } from "node:fs";
import { isListedName } from "@mem/core";
import { Budget, forEachWithBudget } from "./budget.js";
import { type Dir, kindOfStats } from "./dir.js";
import { errnoOf, RefusedEntryError, toStoreFailure } from "./failure.js";
import { isReservedName, TENANTS_DIR } from "./names.js";

/** Extra directory descriptors one walk may hold open at once. */
const OPEN_DIRS = 32;
/**
 * A walk's system calls are synchronous (microseconds each on a local disk, much less than a trip
 * through the thread pool); after this many it lets the event loop run, so that listing a large tree
 * never holds it for more than about a millisecond at a time.
 */
const CALLS_BETWEEN_YIELDS = 256;

/** Counts a walk's system calls and yields to the event loop every {@link CALLS_BETWEEN_YIELDS}. */
export class Pace {
  private calls = 0;
  async step(count = 1): Promise<void> {
    this.calls += count;
    if (this.calls < CALLS_BETWEEN_YIELDS) return;
    this.calls = 0;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export const readEntries = async (dir: Dir): Promise<Dirent[]> => {
  try {
    return readdirSync(dir.self, { withFileTypes: true });
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return [];
    throw toStoreFailure(error);
  }
};

const isSpecial = (entry: Dirent): boolean =>
  entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice();

/**
 * Opens subdirectory `name` of `dir` for a walk and runs `task` in it; a link or special file that
 * replaced the directory since `readdir` is skipped like any other link.
 */
export const withChild = async (
  dir: Dir,
  name: string,
  task: (child: Dir) => Promise<void>,
): Promise<void> => {
  let child: Awaited<ReturnType<Dir["openChild"]>>;
  try {
    child = await dir.openChild(name);
  } catch (error) {
    if (error instanceof RefusedEntryError) return;
    throw error;
  }
  if (typeof child === "string") return;
  try {
    await task(child);
  } finally {
    await child.close();
  }
};

/** Whether any regular file lies beneath directory `name` of `dir`, at any depth (links not followed). */
const holdsFile = async (dir: Dir, name: string, live?: Live): Promise<boolean> => {
  let found = false;
  await withChild(dir, name, async (child) => {
    for (const entry of await readEntries(child)) {
      if (found) return;
      if (entry.isFile() && !live) found = true;
      else if (entry.isDirectory()) found = await holdsFile(child, entry.name, live);
      else if (!entry.isSymbolicLink() && !isSpecial(entry)) {
        const stats = await child.lstat(entry.name);
        found =
          (stats?.isFile() === true && (!live || live(stats))) ||
          (stats?.isDirectory() === true && (await holdsFile(child, entry.name, live)));
      }
    }
  });
  return found;
};

/** Whether a file counts (with expiry on: it has not expired). */
export type Live = (stats: Stats) => boolean;

/**
 * The files a listing of `dir` is built from (see `listingFromFiles`): every regular file beneath it
 * whose path has only listed names, with its size; and, for a directory holding nothing but hidden or
 * `node_modules` content, one such unlisted file standing for it, since that directory still exists
 * (SPEC §3). Unlisted subtrees are only searched for a first file, never walked in full. Symbolic
 * links and special files are skipped, never followed.
 */
/**
 * Every regular file beneath `dir`, hidden and `node_modules` ones included, the store's reserved names
 * (temporary and lock files) left out with everything beneath them. Links and special files are skipped,
 * never followed. With `live`, only the files it accepts (those not expired).
 */
export const collectAllFiles = async (
  dir: Dir,
  dirPath: string,
  live?: Live,
): Promise<{ path: string; size: number }[]> => {
  const files: { path: string; size: number }[] = [];
  const budget = new Budget(OPEN_DIRS);
  const pace = new Pace();
  const visit = async (current: Dir, currentPath: string): Promise<void> => {
    const subdirs: string[] = [];
    const entries = await readEntries(current);
    await pace.step(1 + Math.floor(entries.length / 64));
    for (const entry of entries) {
      if (isReservedName(entry.name) || entry.isSymbolicLink() || isSpecial(entry)) continue;
      if (entry.isDirectory()) {
        subdirs.push(entry.name);
        continue;
      }
      const stats = current.lstatNow(entry.name);
      await pace.step();
      const kind = stats ? kindOfStats(stats) : "missing";
      if (kind === "file" && (!live || (stats && live(stats))))
        files.push({ path: `${currentPath}/${entry.name}`, size: stats?.size ?? 0 });
      else if (kind === "directory") subdirs.push(entry.name);
    }
    await forEachWithBudget(subdirs, budget, (name) =>
      withChild(current, name, (child) => visit(child, `${currentPath}/${name}`)),
    );
  };
  await visit(dir, dirPath);
  return files;
};

export const collectFiles = async (
  dir: Dir,
  dirPath: string,
  live?: Live,
): Promise<{ path: string; size: number }[]> => {
  const files: { path: string; size: number }[] = [];
  const budget = new Budget(OPEN_DIRS);
  const pace = new Pace();

  /** Walks `current`; true when some file lies beneath it. */
  const visit = async (current: Dir, currentPath: string): Promise<boolean> => {
    const subdirs: string[] = [];
    const toStat: string[] = [];
    const unlisted: Dirent[] = [];
    const entries = await readEntries(current);
    await pace.step(1 + Math.floor(entries.length / 64));
    for (const entry of entries) {
      if (!isListedName(entry.name)) unlisted.push(entry);
      else if (entry.isDirectory()) subdirs.push(entry.name);
      else if (!entry.isSymbolicLink() && !isSpecial(entry)) toStat.push(entry.name);
    }
    let found = false;
    // Regular files need their size; entries of unknown type (some file systems report none) need a look.
    for (const name of toStat) {
      const stats = current.lstatNow(name);
      await pace.step();
      if (!stats) continue;
      const kind = kindOfStats(stats);
      if (kind === "file" && (!live || live(stats))) {
        files.push({ path: `${currentPath}/${name}`, size: stats.size });
        found = true;
      } else if (kind === "directory") subdirs.push(name);
    }
    await forEachWithBudget(subdirs, budget, (name) =>
      withChild(current, name, async (child) => {
        if (await visit(child, `${currentPath}/${name}`)) found = true;
      }),
    );
    for (const entry of unlisted) {
      if (found) break;
      // Tenants' files never make their parent's directories exist.
      if (entry.name === TENANTS_DIR) continue;
      const stats = entry.isFile() && !live ? null : await current.lstat(entry.name);
      const isFile = (entry.isFile() && !live) || (stats?.isFile() === true && (!live || live(stats)));
      if (isFile || (await holdsFile(current, entry.name, live))) {
        files.push({ path: `${currentPath}/${entry.name}`, size: 0 });
        found = true;
      }
    }
    return found;
  };

  await visit(dir, dirPath);
  return files;
};
