/**
 * Where versions live: one directory per file path, named by a hash of the path (paths can be longer than
 * a name may be), holding a `path` file with the path itself and one file per version, named by its id.
 */
import { createHash, randomBytes } from "node:crypto";

/** The reserved name of the history directory when history lives in the store it records. */
export const HISTORY_NAME = ".mem-history";

/** The name of the file that records which path a history directory belongs to. */
export const PATH_FILE = "path";

/**
 * The name of the file, directly below the history's base, holding the running total of the bytes of
 * kept versions (a decimal number): the per-store bound is checked against it without a walk.
 */
export const TOTAL_FILE = "bytes";

/** The history directory of a path, below `base`. */
export const historyDir = (base: string, path: string): string =>
  `${base}/${createHash("sha256").update(path).digest("hex").slice(0, 40)}`;

// Base-36 milliseconds (9 digits until the year 5188), a per-process sequence, a random tail:
// ids sort by time, and two versions made in the same millisecond never collide.
const ID = /^([0-9a-z]{9})-([0-9a-z]{4})-([0-9a-f]{8})$/;
let sequence = 0;

/** A new version id for the time `now` (milliseconds since the epoch). */
export const newVersionId = (now: number): string => {
  sequence = (sequence + 1) % 36 ** 4;
  return `${Math.floor(now).toString(36).padStart(9, "0")}-${sequence.toString(36).padStart(4, "0")}-${randomBytes(4).toString("hex")}`;
};

/** The time of a version id, or `null` when `id` is not one (so no id can name another path). */
export const timeOfVersionId = (id: string): number | null => {
  const match = ID.exec(id);
  return match ? Number.parseInt(match[1]!, 36) : null;
};
