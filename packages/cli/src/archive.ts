/**
 * Memory as a tar archive: one regular file per memory file, named by its canonical path without the
 * leading slash (`memories/notes.md`), mode 0600. Reading refuses, before anything is written, every
 * archive holding links, devices, absolute paths, `..` or names outside `memories/`.
 */
import type { Readable, Writable } from "node:stream";
import { ROOT, validatePath } from "@mem/core";
import { Header, Pack, Parser, ReadEntry } from "tar";
import { CommandError } from "./context.js";

const TOP = ROOT.slice(1); // "memories"

/** Writes files to `output` as a tar stream; `next` yields them one at a time, so memory stays small. */
export const writeArchive = async (
  output: Writable,
  files: AsyncIterable<{ path: string; data: Uint8Array }>,
): Promise<void> => {
  const pack = new Pack({ portable: true });
  const finished = new Promise<void>((resolve, reject) => {
    output.on("error", reject);
    output.on("finish", resolve);
    pack.on("error", reject);
  });
  pack.pipe(output);
  const mtime = new Date();
  for await (const file of files) {
    const header = new Header({
      path: file.path.slice(1),
      mode: 0o600,
      size: file.data.byteLength,
      mtime,
      type: "File",
    });
    header.encode();
    const entry = new ReadEntry(header);
    entry.end(Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength));
    pack.add(entry);
  }
  pack.end();
  await finished;
};

export interface ArchivedFile {
  /** Canonical memory path. */
  path: string;
  data: Uint8Array;
}

/**
 * Reads a whole archive and checks every entry; throws `CommandError` naming the first bad entry.
 * Directory entries are accepted and ignored (directories follow from their files).
 */
export const readArchive = async (
  input: Readable,
  isReservedName: ((name: string) => boolean) | undefined,
): Promise<ArchivedFile[]> => {
  const files: ArchivedFile[] = [];
  const refusals: string[] = [];
  const seen = new Set<string>();
  const parser = new Parser({ strict: true });
  parser.on("entry", (entry: ReadEntry) => {
    const verdict = checkEntry(entry, isReservedName);
    if (!("path" in verdict)) {
      if ("refused" in verdict) refusals.push(verdict.refused);
      entry.resume();
      return;
    }
    const { path } = verdict;
    if (seen.has(path)) refusals.push(`"${entry.path}" appears twice`);
    seen.add(path);
    const chunks: Buffer[] = [];
    entry.on("data", (chunk: Buffer) => chunks.push(chunk));
    entry.on("end", () => files.push({ path, data: new Uint8Array(Buffer.concat(chunks)) }));
  });
  await new Promise<void>((resolve, reject) => {
    parser.on("error", (error: Error) =>
      reject(new CommandError(`Not a readable tar archive: ${error.message}`)),
    );
    parser.on("end", () => resolve());
    input.on("error", reject);
    input.pipe(parser);
  });
  if (refusals.length > 0) {
    const shown = refusals.slice(0, 5).join("; ");
    const more = refusals.length > 5 ? ` (and ${refusals.length - 5} more)` : "";
    throw new CommandError(`The archive was refused and nothing was imported: ${shown}${more}.`);
  }
  return files;
};

type Verdict = { path: string } | { skip: true } | { refused: string };

const refuse = (name: string, why: string): Verdict => ({ refused: `"${name}" ${why}` });

/** The canonical path of a file entry, a directory entry to skip, or why the entry is refused. */
const checkEntry = (entry: ReadEntry, isReservedName: ((name: string) => boolean) | undefined): Verdict => {
  const name = entry.path;
  if (entry.type !== "File" && entry.type !== "OldFile" && entry.type !== "Directory") {
    return refuse(name, `is a ${entry.type} entry; only regular files are imported`);
  }
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return refuse(name, "is an absolute path");
  const segments = name.replace(/\/+$/, "").split("/");
  if (segments.includes("..")) return refuse(name, 'contains ".."');
  if (segments[0] !== TOP) return refuse(name, `is outside ${TOP}/`);
  if (entry.type === "Directory") return { skip: true };
  const check = validatePath(`/${name}`, { isReservedName });
  if (!check.ok) return refuse(name, `is not a valid memory path (${check.error.replace(/^Error: /, "")})`);
  if (check.path === ROOT) return refuse(name, `is a file where the ${TOP} directory belongs`);
  return { path: check.path };
};
