/**
 * Writing a set of files into a store, shared by `mem import` and `mem copy`: existing files are never
 * overwritten without `--overwrite` (identical ones count as already there, so a re-run completes an
 * interrupted one), every conflict is found before anything is written, and every file is read back
 * and compared afterwards.
 */
import { createHash } from "node:crypto";
import type { MemoryStore } from "@mem/core";
import { CommandError, type Context } from "../context.js";
import { sameBytes } from "../files.js";
import { type Progress, startProgress } from "../progress.js";

export interface Incoming {
  path: string;
  size: number;
  /** The bytes; `null` when the file vanished from the source. */
  read(): Promise<Uint8Array | null>;
}

export interface TransferResult {
  /** Files written now. */
  files: number;
  bytes: number;
  /** Files that were already there with the same bytes. */
  unchanged: number;
  /** Files verified after writing (written and unchanged). */
  verified: number;
}

const digest = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");

export const transfer = async (
  ctx: Context,
  label: string,
  target: MemoryStore,
  incoming: readonly Incoming[],
  options: { overwrite: boolean; json: boolean },
): Promise<TransferResult> => {
  // Pass 1: find conflicts before writing anything.
  const conflicts: string[] = [];
  const existing = new Map<string, string | null>(); // path → version of a different existing file, null if same
  for (const file of incoming) {
    const stat = await target.stat(file.path);
    if (!stat) continue;
    if (stat.kind === "directory") {
      conflicts.push(`${file.path} (a directory)`);
      continue;
    }
    if (stat.size === file.size) {
      const [mine, theirs] = await Promise.all([target.read(file.path), file.read()]);
      if (mine && theirs && sameBytes(mine.data, theirs)) {
        existing.set(file.path, null);
        continue;
      }
    }
    const current = await target.read(file.path);
    if (!options.overwrite) conflicts.push(file.path);
    else if (current) existing.set(file.path, current.version);
  }
  if (conflicts.length > 0) {
    const shown = conflicts.slice(0, 5).join(", ");
    const more = conflicts.length > 5 ? ` and ${conflicts.length - 5} more` : "";
    throw new CommandError(
      `Nothing was written: ${conflicts.length} file${conflicts.length === 1 ? "" : "s"} already exist${conflicts.length === 1 ? "s" : ""} with other content (${shown}${more}). Pass --overwrite to replace ${conflicts.length === 1 ? "it" : "them"}.`,
    );
  }

  // Pass 2: write.
  const result: TransferResult = { files: 0, bytes: 0, unchanged: 0, verified: 0 };
  const written = new Map<string, string>(); // path → sha256 of what should be there
  const progress: Progress = startProgress(ctx, label, incoming.length, options.json);
  try {
    for (const file of incoming) {
      const data = await file.read();
      if (data === null) {
        progress.tick(0);
        continue;
      }
      written.set(file.path, digest(data));
      const version = existing.get(file.path);
      if (version === null) {
        result.unchanged++;
      } else {
        await target.write(
          file.path,
          data,
          version === undefined ? { ifAbsent: true } : { ifVersion: version },
        );
        result.files++;
        result.bytes += data.byteLength;
      }
      progress.tick(data.byteLength);
    }
  } finally {
    progress.stop();
  }

  // Pass 3: read everything back.
  const mismatched: string[] = [];
  for (const [path, expected] of written) {
    const file = await target.read(path);
    if (!file || digest(file.data) !== expected) mismatched.push(path);
    else result.verified++;
  }
  if (mismatched.length > 0) {
    throw new CommandError(
      `Verification failed: ${mismatched.length} file(s) differ from the source after writing: ${mismatched.slice(0, 5).join(", ")}.`,
    );
  }
  return result;
};
