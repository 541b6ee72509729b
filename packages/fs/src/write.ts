/** A file written under the lock: its conditions, the quota, the kept totals, the atomic write. */
import {
  AlreadyExistsError,
  ConflictError,
  type Expiry,
  exceedsQuota,
  QuotaExceededError,
  type Version,
  type WriteCondition,
  type WriteQuota,
} from "@mem/core";
import { blockedError, descend, reap } from "./descend.js";
import { createdDirs, type Dir, pruneCreated, releaseDescent } from "./dir.js";
import { symlinkRefused } from "./failure.js";
import { usageOf } from "./files.js";
import { readFileIn, versionOf, writeAtomically } from "./io.js";
import { totalsOf } from "./totals.js";

/**
 * Writes `path` (`segments` below `/memories`) under the lock held on `root`: expired files on the way
 * removed first, missing directories made, the condition and the quota checked, then the atomic write.
 */
export const writeIn = async (
  root: Dir,
  path: string,
  segments: readonly string[],
  data: Uint8Array,
  condition: WriteCondition,
  quota: WriteQuota | undefined,
  expiry: Expiry | null,
): Promise<{ version: Version }> => {
  const parentSegments = segments.slice(0, -1);
  const name = segments.at(-1)!;
  await reap(root, segments, expiry);
  const descent = await descend(root, parentSegments, true);
  let done = false;
  try {
    if (descent.blocked) throw blockedError(path, parentSegments, descent.blocked);
    const parent = descent.dirs.at(-1)!;
    const existing = await parent.lstat(name);
    if (existing?.isSymbolicLink()) throw symlinkRefused();
    let before: number | null = null;
    if ("ifAbsent" in condition) {
      if (existing) throw new AlreadyExistsError(path);
    } else {
      if (!existing?.isFile()) throw new ConflictError(path);
      const current = await readFileIn(parent, name, expiry);
      if (current?.version !== condition.ifVersion) throw new ConflictError(path);
      before = current.data.byteLength;
    }
    const totals = totalsOf(root);
    const files = before === null ? 1 : 0;
    const bytes = data.byteLength - (before ?? 0);
    if (quota) {
      // The check and the reservation are one synchronous step: edits running beside this one in
      // the batch adjust the same totals.
      const usage = totals ? { files: totals.files, bytes: totals.bytes } : await usageOf(root, expiry);
      if (exceedsQuota(quota, usage, data.byteLength, before)) throw new QuotaExceededError(path, usage);
    }
    totals?.add(files, bytes);
    try {
      await writeAtomically(parent, name, data, createdDirs(descent), expiry?.now());
    } catch (error) {
      totals?.add(-files, -bytes);
      throw error;
    }
    done = true;
    return { version: versionOf(data) };
  } finally {
    if (!done) await pruneCreated(descent, parentSegments);
    await releaseDescent(descent);
  }
};
