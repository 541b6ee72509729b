import { type Dirent, readdirSync, type Stats } from "node:fs";
import { isListedName, Slices } from "@mem/core";
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

/**
 * What reading one directory of `count` entries costs a walk in the units of {@link Pace}: the open, the
 * `readdir` and the close of its descriptor, and the entries a `readdir` returns (64 about as dear as one
 * call). A 506-deep chain of directories is then paced like 2,000 calls, not 506.
 */
export const directoryCalls = (count: number): number => 4 + Math.floor(count / 64);

/** Counts a walk's system calls and yields to the event loop every {@link CALLS_BETWEEN_YIELDS}. */
export class Pace extends Slices {
  constructor() {
    super(CALLS_BETWEEN_YIELDS);
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

export const isSpecial = (entry: Dirent): boolean =>
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

/** What a {@link walkTree} does at each step; every hook but `entry` is optional. */
export interface TreeVisitor {
  /** Called with the count of entries just read from a directory (for pacing). */
  listed?(count: number): Promise<void> | undefined;
  /** Called for each entry of `dir` (whose memory path is `path`); true descends into it. */
  entry(dir: Dir, path: string, entry: Dirent): boolean | Promise<boolean>;
  /** Called once the walk has left subdirectory `name` of `dir`. */
  left?(dir: Dir, name: string): void | Promise<void>;
  /** Called once every entry and subdirectory of `dir` has been visited. */
  done?(dir: Dir): void | Promise<void>;
  /** True once the walk has found what it looked for: no further entry or directory is visited. */
  stop?(): boolean;
}

/**
 * The one recursive walk of the store: reads each directory once, asks `visitor` about every entry,
 * then descends into the subdirectories it chose, never through a link. With `budget`, subdirectories
 * are walked in parallel while the budget lasts; without, one after another.
 */
export const walkTree = async (
  dir: Dir,
  dirPath: string,
  visitor: TreeVisitor,
  budget?: Budget,
): Promise<void> => {
  const visit = async (current: Dir, currentPath: string): Promise<void> => {
    const subdirs: string[] = [];
    const entries = await readEntries(current);
    await visitor.listed?.(entries.length);
    for (const entry of entries) {
      if (visitor.stop?.()) return;
      const descend = visitor.entry(current, currentPath, entry);
      if (descend === true || (descend !== false && (await descend))) subdirs.push(entry.name);
    }
    const walkChild = async (name: string): Promise<void> => {
      await withChild(current, name, (child) => visit(child, `${currentPath}/${name}`));
      await visitor.left?.(current, name);
    };
    if (budget) await forEachWithBudget(subdirs, budget, walkChild);
    else {
      for (const name of subdirs) {
        if (visitor.stop?.()) return;
        await walkChild(name);
      }
    }
    await visitor.done?.(current);
  };
  await visit(dir, dirPath);
};

/** Whether any regular file lies beneath directory `name` of `dir`, at any depth (links not followed). */
const holdsFile = async (dir: Dir, name: string, live?: Live): Promise<boolean> => {
  let found = false;
  await withChild(dir, name, (child) =>
    walkTree(child, "", {
      stop: () => found,
      entry: async (current, _path, entry) => {
        if (entry.isFile() && !live) found = true;
        else if (entry.isDirectory()) return true;
        else if (!entry.isSymbolicLink() && !isSpecial(entry)) {
          const stats = await current.lstat(entry.name);
          if (stats?.isFile() === true && (!live || live(stats))) found = true;
          else return stats?.isDirectory() === true;
        }
        return false;
      },
    }),
  );
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
  const pace = new Pace();
  const visitor: TreeVisitor = {
    listed: (count) => pace.step(directoryCalls(count)),
    entry: async (current, currentPath, entry) => {
      if (isReservedName(entry.name) || entry.isSymbolicLink() || isSpecial(entry)) return false;
      if (entry.isDirectory()) return true;
      const stats = current.lstatNow(entry.name);
      await pace.step();
      const kind = stats ? kindOfStats(stats) : "missing";
      if (kind === "file" && (!live || (stats && live(stats))))
        files.push({ path: `${currentPath}/${entry.name}`, size: stats?.size ?? 0 });
      return kind === "directory";
    },
  };
  await walkTree(dir, dirPath, visitor, new Budget(OPEN_DIRS));
  return files;
};

export const collectFiles = async (
  dir: Dir,
  dirPath: string,
  live?: Live,
): Promise<{ path: string; size: number }[]> => {
  const files: { path: string; size: number }[] = [];
  const pace = new Pace();
  /** Memory paths of the directories beneath which some file lies. */
  const holding = new Set<string>();
  const found = (path: string) => {
    for (let p = path; p.length >= dirPath.length && !holding.has(p); p = p.slice(0, p.lastIndexOf("/")))
      holding.add(p);
  };
  /** Unlisted entries by directory, looked at only when nothing listed lies beneath that directory. */
  const unlistedIn = new Map<Dir, { path: string; entries: Dirent[] }>();
  const visitor: TreeVisitor = {
    listed: (count) => pace.step(directoryCalls(count)),
    entry: async (current, currentPath, entry) => {
      if (!isListedName(entry.name)) {
        const unlisted = unlistedIn.get(current) ?? { path: currentPath, entries: [] };
        unlisted.entries.push(entry);
        unlistedIn.set(current, unlisted);
        return false;
      }
      if (entry.isDirectory()) return true;
      if (entry.isSymbolicLink() || isSpecial(entry)) return false;
      // Regular files need their size; entries of unknown type (some file systems report none) need a look.
      const stats = current.lstatNow(entry.name);
      await pace.step();
      if (!stats) return false;
      const kind = kindOfStats(stats);
      if (kind === "file" && (!live || live(stats))) {
        files.push({ path: `${currentPath}/${entry.name}`, size: stats.size });
        found(currentPath);
      }
      return kind === "directory";
    },
    done: async (current) => {
      const unlisted = unlistedIn.get(current);
      if (!unlisted) return;
      unlistedIn.delete(current);
      for (const entry of unlisted.entries) {
        if (holding.has(unlisted.path)) break;
        // Tenants' files never make their parent's directories exist.
        if (entry.name === TENANTS_DIR) continue;
        const stats = entry.isFile() && !live ? null : await current.lstat(entry.name);
        const isFile = (entry.isFile() && !live) || (stats?.isFile() === true && (!live || live(stats)));
        if (isFile || (await holdsFile(current, entry.name, live))) {
          files.push({ path: `${unlisted.path}/${entry.name}`, size: 0 });
          found(unlisted.path);
        }
      }
    },
  };
  await walkTree(dir, dirPath, visitor, new Budget(OPEN_DIRS));
  return files;
};
