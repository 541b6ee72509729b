import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  fsync,
  lstatSync,
  mkdirSync,
  openSync,
  rmdirSync,
  type Stats,
  statSync,
} from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { StoreFailureError } from "@mem/core";
import { settleAll } from "./budget.js";
import { errnoOf, specialFileRefused, symlinkRefused, toStoreFailure } from "./failure.js";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** `fsync(2)` on the thread pool: the one call here that can take long enough to stall the event loop. */
export const fsyncAsync = promisify(fsync);

/** What occupies a name inside a directory, judged without following anything. */
export type Kind = "missing" | "file" | "directory" | "link" | "other";

export const kindOfStats = (stats: Stats): Kind =>
  stats.isSymbolicLink() ? "link" : stats.isFile() ? "file" : stats.isDirectory() ? "directory" : "other";

/**
 * How names inside an open directory are turned into paths for system calls.
 * - `"descriptor"` (Linux): `/proc/self/fd/{fd}/{name}`. The kernel resolves the directory through the
 *   open descriptor, so the path is pinned to the directory that was checked when it was opened: a
 *   parent swapped for a symbolic link afterwards cannot redirect the call. This is `openat(2)` for Node.
 * - `"path"`: the directory's absolute path plus the name. Each component was opened with `O_NOFOLLOW`
 *   when the walk passed it, but a component replaced by a link between the check and the call would be
 *   followed (a race only a process already able to write inside the root can attempt).
 */
export type Resolution = "descriptor" | "path";

/** The directory fsync running and the one queued after it, by directory path (see `syncShared`). */
const directorySyncs = new Map<
  string,
  { running?: Promise<void> | undefined; next?: Promise<void> | undefined }
>();

/**
 * An open directory inside the root. Close it only after every call that uses its paths has settled.
 *
 * Metadata calls (open, lstat, close) are made synchronously: on a local disk each takes a few
 * microseconds, far less than a round trip through the thread pool. The methods still return promises,
 * so that callers do not depend on which calls are synchronous.
 */
export class Dir {
  #closed = false;

  private constructor(
    /** The directory's descriptor, open for as long as this object is. */
    readonly fd: number,
    /** The absolute path the directory had when opened (used for system calls in `"path"` mode). */
    readonly path: string,
    readonly resolution: Resolution,
  ) {}

  /**
   * Takes over `fd`, a descriptor the caller opened without following links and found (with `fstat`)
   * to be the directory `name` of `parent`; closing the result closes it.
   */
  static adopt(fd: number, parent: Dir, name: string): Dir {
    return new Dir(fd, `${parent.path}/${name}`, parent.resolution);
  }

  /** Opens the root directory itself; `rootPath` must already be a real (link-free) path. */
  static async openRoot(rootPath: string, resolution: Resolution): Promise<Dir> {
    try {
      return new Dir(openSync(rootPath, DIR_FLAGS), rootPath, resolution);
    } catch (error) {
      const code = errnoOf(error);
      if (code === "ENOENT") throw new StoreFailureError("the memory directory no longer exists");
      if (code === "ELOOP" || code === "ENOTDIR" || code === "EMLINK") {
        const stats = lstatOrNull(rootPath);
        if (stats?.isSymbolicLink()) throw symlinkRefused();
        throw new StoreFailureError("the memory directory is not a directory");
      }
      throw toStoreFailure(error);
    }
  }

  /** A path naming `name` inside this directory, for any system call that does not follow its last component. */
  at(name: string): string {
    return this.resolution === "descriptor" ? `/proc/self/fd/${this.fd}/${name}` : `${this.path}/${name}`;
  }

  /** A path naming this directory itself (for `readdir`). */
  get self(): string {
    return this.resolution === "descriptor" ? `/proc/self/fd/${this.fd}` : this.path;
  }

  async lstat(name: string): Promise<Stats | null> {
    return this.lstatNow(name);
  }

  /** `lstat` without the promise, for walks that make many calls in a row. */
  lstatNow(name: string): Stats | null {
    try {
      return lstatSync(this.at(name));
    } catch (error) {
      const code = errnoOf(error);
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw toStoreFailure(error);
    }
  }

  async kindOf(name: string): Promise<Kind> {
    const stats = await this.lstat(name);
    return stats ? kindOfStats(stats) : "missing";
  }

  /**
   * Opens the subdirectory `name` without following a link there. Returns what is there instead when it
   * is not a directory; a symbolic link or special file is an error.
   */
  async openChild(name: string): Promise<Dir | "missing" | "file"> {
    try {
      return new Dir(openSync(this.at(name), DIR_FLAGS), `${this.path}/${name}`, this.resolution);
    } catch (error) {
      const code = errnoOf(error);
      if (code === "ENOENT") return "missing";
      if (code !== "ELOOP" && code !== "ENOTDIR" && code !== "EMLINK") throw toStoreFailure(error);
      const kind = await this.kindOf(name);
      if (kind === "link") throw symlinkRefused();
      if (kind === "other") throw specialFileRefused();
      if (kind === "file" || kind === "missing") return kind;
      throw toStoreFailure(error);
    }
  }

  /**
   * `sync()`, shared with the other callers that ask for the same directory at the same time: a caller
   * joins the next fsync to start, never one already running (which may have begun before the caller's
   * change), so every caller's change is on disk when its promise resolves. Concurrent edits in one
   * directory then cost one or two directory fsyncs instead of one each.
   */
  syncShared(): Promise<void> {
    const key = this.path;
    let state = directorySyncs.get(key);
    if (!state) {
      state = {};
      directorySyncs.set(key, state);
    }
    const start = (): Promise<void> => {
      const running = this.sync().finally(() => {
        if (state.running === running) state.running = undefined;
        if (!state.running && !state.next && directorySyncs.get(key) === state) directorySyncs.delete(key);
      });
      state.running = running;
      return running;
    };
    if (!state.running) return start();
    state.next ??= state.running
      .catch(() => undefined)
      .then(() => {
        state.next = undefined;
        return start();
      });
    return state.next;
  }

  async sync(): Promise<void> {
    try {
      await fsyncAsync(this.fd);
    } catch (error) {
      // Some file systems cannot sync a directory descriptor; the data itself was synced already.
      const code = errnoOf(error);
      if (code !== "EINVAL" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EBADF")
        throw toStoreFailure(error);
    }
  }

  /** Closes the descriptor once; a second call must not close a number the kernel has reused since. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      closeSync(this.fd);
    } catch {
      // Nothing useful can be done about a failed close of a directory opened read-only.
    }
  }
}

const lstatOrNull = (path: string): Stats | null => {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
};

/** Closes every directory of a walk, deepest first. */
export const closeAll = async (dirs: readonly Dir[]): Promise<void> => {
  for (let i = dirs.length - 1; i >= 0; i--) await dirs[i]?.close();
};

/** Creates `path` (0700) unless it is there; refuses anything but a real directory at it. */
export const ensureDirectory = (path: string): void => {
  try {
    mkdirSync(path, { mode: 0o700 });
    chmodSync(path, 0o700);
  } catch (error) {
    if (errnoOf(error) !== "EEXIST") throw toStoreFailure(error);
  }
  if (!lstatSync(path).isDirectory()) throw symlinkRefused();
};

export const createRoot = (requested: string): void => {
  const first = mkdirSync(requested, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  // mkdir's mode is masked by the umask; set it explicitly on every directory created here.
  for (let dir = requested; ; dir = dirname(dir)) {
    chmodSync(dir, 0o700);
    if (dir === first || dir === dirname(dir)) break;
  }
};

/** Whether `/proc/self/fd/{fd}` reaches the directory behind `fd` (Linux with /proc mounted). */
export const descriptorPathsWork = (root: string): boolean => {
  if (process.platform !== "linux") return false;
  let fd: number | undefined;
  try {
    fd = openSync(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    const direct = fstatSync(fd);
    const viaProc = statSync(`/proc/self/fd/${fd}/.`);
    return direct.dev === viaProc.dev && direct.ino === viaProc.ino;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
};

/** Directories opened on the way from the root to a path; `dirs[0]` is the root. */
export interface Descent {
  dirs: Dir[];
  /** Where the walk stopped early: nothing at `segments[index]`, or a file there. */
  blocked?: { kind: "missing" | "file"; index: number };
  /** Index in `dirs` of the first directory that received a newly created subdirectory, or -1. */
  createdFrom: number;
}

export const releaseDescent = (descent: Descent): Promise<void> => closeAll(descent.dirs.slice(1));

/** Every directory that received a new subdirectory during the descent. */
export const createdDirs = (descent: Descent): Dir[] =>
  descent.createdFrom < 0 ? [] : descent.dirs.slice(descent.createdFrom);

/**
 * Syncs directories concurrently: each sync is complete when this resolves, and syncs issued together
 * share the file system's journal commit instead of waiting for one each.
 */
export const syncAll = async (dirs: readonly Dir[]): Promise<void> => {
  await settleAll(dirs.map((dir) => dir.syncShared()));
};

/** After a failed change, removes the directories the descent created (only if still empty). */
export const pruneCreated = async (descent: Descent, segments: readonly string[]): Promise<void> => {
  if (descent.createdFrom < 0) return;
  await pruneEmpty(descent.dirs, segments, descent.createdFrom + 1).catch(() => undefined);
};

/**
 * Removes the directory at the end of `dirs` and its ancestors while they are empty, down to
 * `dirs[floor]` and never the root (directories are implicit: one exists only while a file lies
 * beneath it).
 */
export const pruneEmpty = async (
  dirs: readonly Dir[],
  segments: readonly string[],
  floor = 1,
): Promise<void> => {
  let removedFrom = -1;
  for (let i = dirs.length - 1; i >= Math.max(floor, 1); i--) {
    try {
      rmdirSync(dirs[i - 1]!.at(segments[i - 1]!));
      removedFrom = i - 1;
    } catch (error) {
      const code = errnoOf(error);
      if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOENT") break;
      throw toStoreFailure(error);
    }
  }
  if (removedFrom >= 0) await dirs[removedFrom]!.sync();
};
