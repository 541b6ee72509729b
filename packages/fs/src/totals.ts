/**
 * The files and bytes of a root, kept in the reserved file `.~mem-usage` so that `usage()` and quota
 * checks read one small file instead of walking the tree. Changes adjust the totals under the root's
 * lock and the file is replaced (temporary file, then rename) before the lock is released.
 *
 * A root starts keeping them when a store asks for its usage (`usage()`, a write under a quota); one that
 * nobody asks about has no such file.
 *
 * The file is trusted only while it can be right; otherwise the tree is counted again (under the lock)
 * and the file rewritten: when it is missing, unreadable, of another format, or written for another
 * directory (a copied or restored root: its device and inode differ), after the lock was taken over from
 * a holder that died (a change may have landed without its totals), and after 1,000 changes or 10
 * minutes since the last count, which bounds how long changes made by a program that does not keep the
 * totals (an older `@mem/fs`, a hand edit) can skew them.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import type { Dir } from "./dir.js";
import { errnoOf } from "./failure.js";
import { forEachFile } from "./files.js";
import { createPrivateFile } from "./io.js";
import { TOTALS_NAME, tempName } from "./names.js";

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

const FORMAT = "mem-usage/1";
/** Changes after which the tree is counted again. */
export const RECOUNT_AFTER_CHANGES = 1_000;
/** Age after which the tree is counted again. */
export const RECOUNT_AFTER_MS = 10 * 60_000;
/** Larger than any file this module writes. */
const MAX_FILE_BYTES = 4096;

interface Recorded {
  format: string;
  root: string;
  files: number;
  bytes: number;
  changes: number;
  countedAt: number;
}

const identityOf = (root: Dir): string => {
  const stats = fstatSync(root.fd);
  return `${stats.dev}:${stats.ino}`;
};

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** The recorded totals of `root` when they can be trusted now, else `null`. Never throws. */
export const readTotals = (root: Dir, now = Date.now()): Recorded | null => {
  const found = readRecorded(root, now);
  return typeof found === "string" ? null : found;
};

const readRecorded = (root: Dir, now: number): Recorded | "missing" | "untrusted" => {
  let fd: number;
  try {
    fd = openSync(root.at(TOTALS_NAME), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    return errnoOf(error) === "ENOENT" ? "missing" : "untrusted";
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_FILE_BYTES) return "untrusted";
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const value = JSON.parse(buffer.toString("utf8", 0, length)) as Partial<Recorded> | null;
    if (
      value?.format !== FORMAT ||
      value.root !== identityOf(root) ||
      !isCount(value.files) ||
      !isCount(value.bytes) ||
      !isCount(value.changes) ||
      !isCount(value.countedAt) ||
      value.changes >= RECOUNT_AFTER_CHANGES ||
      now - value.countedAt >= RECOUNT_AFTER_MS ||
      value.countedAt > now + RECOUNT_AFTER_MS
    )
      return "untrusted";
    return value as Recorded;
  } catch {
    return "untrusted";
  } finally {
    closeSync(fd);
  }
};

/** Counts every regular file beneath `root`, hidden ones included, bookkeeping and links left out. */
export const countFiles = async (root: Dir): Promise<{ files: number; bytes: number }> => {
  const usage = { files: 0, bytes: 0 };
  await forEachFile(root, "", ({ stats }) => {
    usage.files += 1;
    usage.bytes += stats.size;
  });
  return usage;
};

/** The totals of one hold of the lock: adjusted by each change, saved before the lock is released. */
export class HeldTotals {
  #changed = false;
  #broken = false;
  readonly #recorded: Recorded;

  private constructor(recorded: Recorded, recounted: boolean) {
    this.#recorded = recorded;
    this.#changed = recounted;
  }

  /**
   * The root's totals, read from its file or (when that cannot be trusted, or `recount`) counted; `null`
   * when the root keeps none (no file) and `want` does not ask to start.
   */
  static async open(root: Dir, recount: boolean, want: boolean): Promise<HeldTotals | null> {
    const now = Date.now();
    const found = readRecorded(root, now);
    if (found === "missing" && !want) return null;
    if (typeof found !== "string" && !recount) return new HeldTotals(found, false);
    const counted = await countFiles(root);
    const recorded = { format: FORMAT, root: identityOf(root), ...counted, changes: 0, countedAt: now };
    return new HeldTotals(recorded, true);
  }

  get files(): number {
    return this.#recorded.files;
  }

  get bytes(): number {
    return this.#recorded.bytes;
  }

  /** Adds a change. Synchronous, so that a quota check and its reservation are one step. */
  add(files: number, bytes: number): void {
    this.#recorded.files += files;
    this.#recorded.bytes += bytes;
    this.#recorded.changes += 1;
    this.#changed = true;
  }

  /** A change failed part-way: the totals may be off, so the file goes and the next hold counts. */
  invalidate(): void {
    this.#broken = true;
  }

  /** Writes the totals (or removes the file when they may be off). Failures only cost a recount later. */
  save(root: Dir): void {
    const target = root.at(TOTALS_NAME);
    if (this.#broken) {
      try {
        unlinkSync(target);
      } catch {
        // Missing already; anything else makes the file fail its checks at the next read.
      }
      return;
    }
    if (!this.#changed) return;
    const temp = root.at(tempName());
    try {
      const fd = createPrivateFile(temp);
      try {
        writeSync(fd, JSON.stringify(this.#recorded));
      } finally {
        closeSync(fd);
      }
      renameSync(temp, target);
    } catch {
      try {
        unlinkSync(temp);
      } catch {
        // Never created; recovery removes a leftover temporary file.
      }
      try {
        unlinkSync(target);
      } catch {
        // As above.
      }
    }
  }
}

/**
 * Roots (by real path) whose stores asked for their usage in this process: their next change starts
 * keeping totals. Roots nobody asks about keep no file and pay nothing.
 */
const wanted = new Set<string>();

export const wantTotals = (rootPath: string): void => {
  wanted.add(rootPath);
};

export const totalsWanted = (rootPath: string): boolean => wanted.has(rootPath);

/** The totals of the lock hold each open root belongs to (a batch's changes all share its root). */
const held = new WeakMap<Dir, HeldTotals>();

/** Runs `body` with `totals` as the totals of `root`'s hold, then saves them (still under the lock). */
export const holdingTotals = async (
  root: Dir,
  totals: HeldTotals,
  body: () => Promise<void>,
): Promise<void> => {
  held.set(root, totals);
  try {
    await body();
  } finally {
    held.delete(root);
    totals.save(root);
  }
};

/** The totals of the hold `root` was opened for; `undefined` without one (stores with expiry). */
export const totalsOf = (root: Dir): HeldTotals | undefined => held.get(root);
