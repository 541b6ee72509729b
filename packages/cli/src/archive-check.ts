/**
 * The first reading of an archive to import: every entry is checked, and the whole archive refused with
 * the reasons, before the store is even opened. Refused: links, devices, absolute paths, `..`, names
 * outside `memories/` or invalid as memory paths, a name twice, a name that is a file and a directory,
 * files above the size limit, and (unless allowed) files the sensitive-data guard would refuse.
 */
import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { ancestorsOf, type Guard, guardText, ROOT, validatePath } from "@mem/core";
import { type ArchiveEntry, readArchive, TOP } from "./archive.js";
import { CommandError } from "./context.js";

/** A file of the archive, checked, without its bytes. */
export interface CheckedFile {
  path: string;
  size: number;
  /** sha256 of the bytes, hex. */
  digest: string;
}

export interface ArchiveChecks {
  /** Largest file accepted, in bytes. */
  maxFileBytes: number;
  /** The sensitive-data guard files must pass; `null`: none. */
  guard: Guard | null;
  /** The store's reserved names, when it is known. */
  isReservedName?: (name: string) => boolean;
}

export const digestOf = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");

const SHOWN_REFUSALS = 5;

/** Reads `input` once and returns its files in archive order, or throws `CommandError` with every refusal. */
export const checkArchive = async (input: Readable, checks: ArchiveChecks): Promise<CheckedFile[]> => {
  const files: CheckedFile[] = [];
  const refusals: string[] = [];
  const seen = new Map<string, string>(); // path → name in the archive
  for await (const entry of readArchive(input, checks.maxFileBytes)) {
    const verdict = checkEntry(entry, checks);
    if ("refused" in verdict) refusals.push(verdict.refused);
    if (!("path" in verdict)) continue;
    const { path } = verdict;
    if (seen.has(path)) {
      refusals.push(`"${entry.name}" appears twice`);
      continue;
    }
    seen.set(path, entry.name);
    files.push({ path, size: entry.size, digest: digestOf(entry.data!) });
  }
  // A name both a file and the directory of another file cannot be written whole.
  for (const { path } of files) {
    for (const ancestor of ancestorsOf(path)) {
      const name = seen.get(ancestor);
      if (ancestor !== ROOT && name !== undefined) {
        refusals.push(`"${name}" is a file, but "${seen.get(path)}" needs it to be a directory`);
      }
    }
  }
  if (refusals.length > 0) {
    const shown = refusals.slice(0, SHOWN_REFUSALS).join("; ");
    const more = refusals.length > SHOWN_REFUSALS ? ` (and ${refusals.length - SHOWN_REFUSALS} more)` : "";
    throw new CommandError(`The archive was refused and nothing was imported: ${shown}${more}.`);
  }
  return files;
};

type Verdict = { path: string } | { skip: true } | { refused: string };

const refuse = (name: string, why: string): Verdict => ({ refused: `"${name}" ${why}` });

const strictText = new TextDecoder("utf-8", { fatal: true });

/** The canonical path of a file entry, a directory entry to skip, or why the entry is refused. */
const checkEntry = (entry: ArchiveEntry, checks: ArchiveChecks): Verdict => {
  const { name } = entry;
  if (entry.type !== "File" && entry.type !== "OldFile" && entry.type !== "Directory") {
    return refuse(name, `is a ${entry.type} entry; only regular files are imported`);
  }
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return refuse(name, "is an absolute path");
  const segments = name.replace(/\/+$/, "").split("/");
  if (segments.includes("..")) return refuse(name, 'contains ".."');
  if (segments[0] !== TOP) return refuse(name, `is outside ${TOP}/`);
  if (entry.type === "Directory") return { skip: true };
  const check = validatePath(`/${name}`, { isReservedName: checks.isReservedName });
  if (!check.ok) return refuse(name, `is not a valid memory path (${check.error.replace(/^Error: /, "")})`);
  if (check.path === ROOT) return refuse(name, `is a file where the ${TOP} directory belongs`);
  if (entry.data === null) {
    return refuse(
      name,
      `is ${entry.size} bytes, more than the limit of ${checks.maxFileBytes} (--max-file-bytes)`,
    );
  }
  if (checks.guard) {
    let text: string | undefined;
    try {
      text = strictText.decode(entry.data);
    } catch {
      // Not UTF-8 text: the model never reads it as text, so the guard has nothing to read either.
    }
    const verdict = text === undefined ? undefined : guardText(checks.guard, check.path, text);
    if (verdict && !verdict.ok) {
      const finding =
        /line \d+ looks like [^.]+/.exec(verdict.error)?.[0] ?? "holds what looks like a secret";
      return refuse(
        name,
        `is refused by the sensitive-data guard: ${finding} (--allow-secrets imports it anyway)`,
      );
    }
  }
  return { path: check.path };
};

/**
 * The files of `input` for writing, one at a time, after `checkArchive` accepted it: each must be the
 * file checked then, with the same bytes (an archive changed in between stops the import).
 */
export async function* checkedFiles(
  input: Readable,
  files: readonly CheckedFile[],
  maxFileBytes: number,
): AsyncGenerator<{ path: string; data: Uint8Array }> {
  let next = 0;
  for await (const entry of readArchive(input, maxFileBytes)) {
    if (entry.type === "Directory") continue;
    const expected = files[next++];
    if (!expected || entry.data === null || digestOf(entry.data) !== expected.digest) {
      throw new CommandError("The archive changed while it was being imported; run mem import again.");
    }
    yield { path: expected.path, data: entry.data };
  }
  if (next !== files.length) {
    throw new CommandError("The archive changed while it was being imported; run mem import again.");
  }
}
