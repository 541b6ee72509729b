import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
} from "node:fs";
import { uptime } from "node:os";
import { StoreFailureError, sleep } from "@mem/core";
import type { Dir } from "./dir.js";
import { errnoOf, toStoreFailure } from "./failure.js";
import { createPrivateFile, readAll, writeAll } from "./io.js";
import { LOCK_NAME, LOCK_TEMP_PREFIX, lockTempName, MARKER_PREFIX, pidOfLockTemp } from "./names.js";
import { type Owner, ownerFor, ownerGone, parseOwner, pidAlive } from "./process-identity.js";

const { O_NOFOLLOW, O_RDONLY, O_NONBLOCK } = constants;

export interface LockTiming {
  /** How long to wait for the lock before failing. */
  timeoutMs: number;
  /**
   * Age after which a lock whose holder cannot be checked (another host, or an unreadable lock file)
   * counts as abandoned. Locks are held for one command, normally milliseconds.
   */
  staleMs: number;
}

/**
 * Tokens of locks this process holds right now, on any root. Kept on `globalThis` so that two copies
 * of this module in one process (a bundled and an installed one) agree on which locks are live.
 */
const HELD_KEY = Symbol.for("@mem/fs:held-locks");
const shared = globalThis as { [HELD_KEY]?: Set<string> };
shared[HELD_KEY] ??= new Set<string>();
const heldTokens: Set<string> = shared[HELD_KEY];

interface Seen {
  owner: Owner | null;
  ino: number;
  mtimeMs: number;
}

const unlinkQuietly = (path: string): void => {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or left for recovery: either way nothing waits on it.
  }
};

/** Writes `content` to the fresh file `path` (0600, never through a link). */
const writeNew = async (path: string, content: Buffer): Promise<void> => {
  const fd = createPrivateFile(path);
  try {
    await writeAll(fd, content);
  } finally {
    closeSync(fd);
  }
};

/** Writes `content` to a fresh reserved file in `dir` and returns its name. */
const writeCandidate = async (dir: Dir, content: Buffer): Promise<string> => {
  const name = lockTempName();
  await writeNew(dir.at(name), content);
  return name;
};

const readLock = async (dir: Dir, name: string): Promise<Seen | null> => {
  let fd: number;
  try {
    fd = openSync(dir.at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return null;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    const text = (await readAll(fd, stats)).toString("utf8");
    return { owner: parseOwner(text), ino: stats.ino, mtimeMs: stats.mtimeMs };
  } finally {
    closeSync(fd);
  }
};

/** When this machine booted; a lock file last changed before that cannot have a live holder here. */
const bootedAt = (): number => Date.now() - uptime() * 1000;

const isAbandoned = (seen: Seen, staleMs: number): boolean => {
  const { owner } = seen;
  // Unreadable: a holder may be writing it this instant (exclusive-create fallback), or a crash lost it.
  if (owner === null) return seen.mtimeMs < bootedAt() || Date.now() - seen.mtimeMs > staleMs;
  if (owner.pid === process.pid && ownerGone(owner) === false) return !heldTokens.has(owner.token);
  const gone = ownerGone(owner);
  return gone ?? Date.now() - seen.mtimeMs > staleMs;
};

/**
 * Places `name` (a complete lock file) at `target` only if nothing is there: `link(2)` fails with
 * EEXIST atomically. File systems without hard links fall back to exclusive creation.
 */
const placeExclusively = async (
  dir: Dir,
  name: string,
  target: string,
  content: Buffer,
): Promise<boolean> => {
  try {
    linkSync(dir.at(name), dir.at(target));
    return true;
  } catch (error) {
    const code = errnoOf(error);
    if (code === "EEXIST") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
  }
  try {
    await writeNew(dir.at(target), content);
    return true;
  } catch (error) {
    if (errnoOf(error) === "EEXIST") return false;
    throw error;
  }
};

/** The marker guarding the replacement of the abandoned file `seen`: one per abandoned token. */
const markerFor = (seen: Seen): string =>
  `${MARKER_PREFIX}${seen.owner?.token ?? `i${seen.ino}-${Math.trunc(seen.mtimeMs)}`}`;

/** Deepest chain of abandoned markers followed; each level needs another crash within a few system calls. */
const MAX_TAKEOVER_DEPTH = 8;

/**
 * Replaces the file `name`, last seen as the abandoned `seen`, with the complete file `candidate`.
 *
 * Whoever places the marker of `seen` (exclusively, with `link(2)`) may replace it; the others go back
 * to waiting. Under the marker it re-checks that `name` is still the abandoned file (same inode and
 * token) and renames `candidate` over it. No one else can change `name` in between: its holder is dead,
 * acquirers only place a lock where none is, and other replacers need the marker. A marker whose own
 * holder died is taken over by the same procedure, one level down. Once `name` is replaced, its old
 * token never returns, so a replacer arriving late finds nothing to do.
 */
const takeOver = async (
  dir: Dir,
  name: string,
  seen: Seen,
  candidate: string,
  content: Buffer,
  staleMs: number,
  depth = 0,
): Promise<boolean> => {
  if (depth > MAX_TAKEOVER_DEPTH) return false;
  const marker = markerFor(seen);
  const markerCandidate = await writeCandidate(dir, content);
  let holding = false;
  try {
    holding = await placeExclusively(dir, markerCandidate, marker, content);
    if (!holding) {
      const other = await readLock(dir, marker);
      if (other === null || !isAbandoned(other, staleMs)) return false;
      holding = await takeOver(dir, marker, other, markerCandidate, content, staleMs, depth + 1);
      if (!holding) return false;
    }
    const now = await readLock(dir, name);
    if (!now || now.ino !== seen.ino || now.owner?.token !== seen.owner?.token) return false;
    renameSync(dir.at(candidate), dir.at(name));
    return true;
  } finally {
    unlinkQuietly(dir.at(markerCandidate));
    if (holding) unlinkQuietly(dir.at(marker));
  }
};

/** Removes markers whose holders are gone (run by a holder of the lock, after a takeover). */
export const removeAbandonedMarkers = async (
  root: Dir,
  names: readonly string[],
  staleMs: number,
): Promise<void> => {
  for (const name of names) {
    if (!name.startsWith(MARKER_PREFIX)) continue;
    const seen = await readLock(root, name).catch(() => null);
    if (seen && isAbandoned(seen, staleMs)) unlinkQuietly(root.at(name));
  }
};

/**
 * Removes lock candidates of processes that died before placing them (killed between writing the
 * candidate and linking it): nothing else would remove them until a holder dies. Run by each new
 * holder; one directory read of the root. Only candidates older than `staleMs` go: a pid that is not
 * running here may belong to another host sharing the root, whose candidates live for milliseconds.
 */
const removeDeadCandidates = (root: Dir, staleMs: number): void => {
  let names: string[];
  try {
    names = readdirSync(root.self);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(LOCK_TEMP_PREFIX)) continue;
    const pid = pidOfLockTemp(name);
    if (pid === null || pid === process.pid || pidAlive(pid)) continue;
    const stats = root.lstatNow(name);
    if (stats?.isFile() && Date.now() - stats.mtimeMs > staleMs) unlinkQuietly(root.at(name));
  }
};

/**
 * When each store (by its timing object) last looked for dead candidates: on its first change, then at
 * most every `staleMs / 2`, since the look reads the whole root directory and candidates only need to
 * go eventually.
 */
const lastScans = new WeakMap<LockTiming, number>();

export interface Held {
  token: string;
  /** True when the lock was taken over from a holder that died: its leftovers need cleaning. */
  recovered: boolean;
}

/** Takes the root's cross-process lock, waiting (bounded) for a live holder and replacing a dead one. */
export const acquire = async (root: Dir, timing: LockTiming): Promise<Held> => {
  const token = randomBytes(16).toString("hex");
  const content = Buffer.from(JSON.stringify(ownerFor(token)));
  const deadline = Date.now() + timing.timeoutMs;
  let delay = 1;
  let candidate: string | null = null;
  heldTokens.add(token);
  try {
    for (;;) {
      candidate ??= await writeCandidate(root, content);
      let placed: boolean;
      try {
        placed = await placeExclusively(root, candidate, LOCK_NAME, content);
      } catch (error) {
        if (errnoOf(error) !== "ENOENT") throw error;
        candidate = null;
        continue;
      }
      if (placed) {
        const last = lastScans.get(timing);
        if (last === undefined || Date.now() - last >= timing.staleMs / 2) {
          lastScans.set(timing, Date.now());
          removeDeadCandidates(root, timing.staleMs);
        }
        return { token, recovered: false };
      }
      const seen = await readLock(root, LOCK_NAME);
      if (seen === null) continue;
      if (
        isAbandoned(seen, timing.staleMs) &&
        (await takeOver(root, LOCK_NAME, seen, candidate, content, timing.staleMs))
      ) {
        candidate = null;
        return { token, recovered: true };
      }
      if (Date.now() > deadline) throw new StoreFailureError("timed out waiting for the store lock");
      await sleep(delay * (0.5 + Math.random()));
      delay = Math.min(delay * 2, 25);
    }
  } catch (error) {
    heldTokens.delete(token);
    throw toStoreFailure(error);
  } finally {
    if (candidate !== null) unlinkQuietly(root.at(candidate));
  }
};

/** Releases the lock if it is still ours (it is, unless another host judged it abandoned). */
export const release = async (root: Dir, held: Held): Promise<void> => {
  try {
    const seen = await readLock(root, LOCK_NAME);
    if (seen?.owner?.token === held.token) unlinkSync(root.at(LOCK_NAME));
  } catch (error) {
    if (errnoOf(error) !== "ENOENT") throw toStoreFailure(error);
  } finally {
    heldTokens.delete(held.token);
  }
};
