/**
 * Writing a set of files into a store, shared by `mem import` and `mem copy`: existing files are never
 * overwritten without `--overwrite` (identical ones count as already there, so a re-run completes an
 * interrupted one), every conflict is found before anything is written, and every file is read back
 * and compared afterwards.
 */
import { createHash } from "node:crypto";
import { ancestorsOf, type MemoryStore, ROOT } from "@mem/core";
import { CommandError, type Context } from "../context.js";
import { sameBytes } from "../files.js";
import { type Progress, startProgress } from "../progress.js";

export interface Incoming {
  path: string;
  size: number;
  /** sha256 of the bytes, hex, when known; otherwise `read` gives the bytes to compare. */
  digest?: string;
  /** The bytes; `null` when the file vanished from the source. */
  read?(): Promise<Uint8Array | null>;
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

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

const listed = (paths: readonly string[]): string =>
  `${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ` and ${paths.length - 5} more` : ""}`;

/**
 * Writes `contents` (the files of `incoming`, in any order, one at a time) into `target`. Before the
 * first write, every conflict is found: a directory where a file goes, a file where a directory is
 * needed, a file with other content (unless `overwrite`).
 */
export const transfer = async (
  ctx: Context,
  label: string,
  target: MemoryStore,
  incoming: readonly Incoming[],
  contents: AsyncIterable<{ path: string; data: Uint8Array }>,
  options: { overwrite: boolean; json: boolean },
): Promise<TransferResult> => {
  // Pass 1: find conflicts before writing anything.
  const blocked: string[] = []; // never resolved by --overwrite
  const differing: string[] = [];
  const existing = new Map<string, string | null>(); // path → version of a different existing file, null if same
  const directories = new Set<string>();
  for (const file of incoming)
    for (const dir of ancestorsOf(file.path)) if (dir !== ROOT) directories.add(dir);
  for (const dir of [...directories].sort()) {
    if ((await target.stat(dir))?.kind === "file")
      blocked.push(`${dir} (a file where a directory is needed)`);
  }
  for (const file of incoming) {
    const stat = await target.stat(file.path);
    if (!stat) continue;
    if (stat.kind === "directory") {
      blocked.push(`${file.path} (a directory where a file goes)`);
      continue;
    }
    const current = await target.read(file.path);
    if (current && stat.size === file.size && (await sameAs(current.data, file))) {
      existing.set(file.path, null);
      continue;
    }
    if (!options.overwrite) differing.push(file.path);
    else if (current) existing.set(file.path, current.version);
  }
  if (blocked.length > 0) {
    throw new CommandError(
      `Nothing was written: ${plural(blocked.length, "path is", "paths are")} taken by the other kind of entry: ${listed(blocked)}.`,
    );
  }
  if (differing.length > 0) {
    throw new CommandError(
      `Nothing was written: ${plural(differing.length, "file already exists", "files already exist")} with other content (${listed(differing)}). Pass --overwrite to replace ${differing.length === 1 ? "it" : "them"}.`,
    );
  }

  // Pass 2: write.
  const result: TransferResult = { files: 0, bytes: 0, unchanged: 0, verified: 0 };
  const written = new Map<string, string>(); // path → sha256 of what should be there
  const progress: Progress = startProgress(ctx, label, incoming.length, options.json);
  try {
    for await (const file of contents) {
      const { data } = file;
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

/** Whether `mine` holds the bytes of `file`, by digest when it has one. */
const sameAs = async (mine: Uint8Array, file: Incoming): Promise<boolean> => {
  if (file.digest !== undefined) return digest(mine) === file.digest;
  const theirs = (await file.read?.()) ?? null;
  return theirs !== null && sameBytes(mine, theirs);
};
