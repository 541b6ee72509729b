/**
 * Memory as a tar archive (docs/archive.md): first `mem-archive.json`, the manifest (format version,
 * tenants), then one regular file per memory file, named by its canonical path without the leading
 * slash (`memories/notes.md`), a tenant's under `tenants/<id, percent-encoded>/memories/...`, mode 0600.
 * Archives are read as streams (gzip-compressed ones too), one entry at a time: no more than one file is
 * ever held in memory.
 */
import type { Readable, Writable } from "node:stream";
import { ROOT } from "@mem/core";
import type { ReadEntry } from "tar";
import { CommandError } from "./context.js";

export const TOP = ROOT.slice(1); // "memories"

/** The manifest's entry name, written first. */
export const MANIFEST_NAME = "mem-archive.json";
/** The archive format this version writes; it reads this one and every earlier one. */
export const ARCHIVE_VERSION = 1;
/** The folder of the tenants' files. */
export const TENANTS_DIR = "tenants";

export interface Manifest {
  format: "mem-archive";
  version: number;
  /** Whether every tenant of the store was exported (`--all-tenants`). */
  allTenants: boolean;
  /** The tenants whose files follow, in byte order of their ids. */
  tenants: string[];
}

/** The manifest of an archive of the store and `tenants`; `null` tenants: the store alone. */
export const manifestOf = (tenants: readonly string[] | null): Uint8Array =>
  new TextEncoder().encode(
    `${JSON.stringify({ format: "mem-archive", version: ARCHIVE_VERSION, allTenants: tenants !== null, tenants: [...(tenants ?? [])] } satisfies Manifest)}\n`,
  );

/** The entry name of a file of the store (`tenant` undefined) or of one of its tenants. */
export const entryName = (path: string, tenant?: string): string =>
  tenant === undefined ? path.slice(1) : `${TENANTS_DIR}/${encodeURIComponent(tenant)}/${path.slice(1)}`;

/** Writes entries to `output` as a tar stream; `files` yields them one at a time, each with its entry name. */
export const writeArchive = async (
  output: Writable,
  files: AsyncIterable<{ name: string; data: Uint8Array }>,
): Promise<void> => {
  // tar loads when an archive is written or read, not with every command.
  const { Header, Pack, ReadEntry } = await import("tar");
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
      path: file.name,
      mode: 0o600,
      size: file.data.byteLength,
      mtime,
      type: "File",
    });
    header.encode();
    const entry = new ReadEntry(header);
    entry.end(Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength));
    // Waits while the output is behind, so a large store is never held in memory at once.
    if (!pack.write(entry)) await new Promise<void>((resolve) => pack.once("drain", () => resolve()));
  }
  pack.end();
  await finished;
};

/** One entry of an archive as read. */
export interface ArchiveEntry {
  /** The name as written in the archive. */
  name: string;
  /** tar's entry type: `File`, `Directory`, `SymbolicLink`... */
  type: string;
  /** The size the header gives. */
  size: number;
  /** The bytes of a regular file of at most `maxBytes`; `null` for any other entry (skipped unread). */
  data: Uint8Array | null;
}

const isFile = (type: string): boolean => type === "File" || type === "OldFile";

/**
 * The entries of the archive `input`, one at a time: the input is read only as fast as they are taken.
 * Files larger than `maxBytes` are skipped unread (`data: null`). Throws `CommandError` when the input is
 * not a tar archive.
 */
export async function* readArchive(input: Readable, maxBytes: number): AsyncGenerator<ArchiveEntry> {
  const { Parser } = await import("tar");
  const parser = new Parser({ strict: true });
  const ready: ArchiveEntry[] = [];
  let failure: Error | undefined;
  parser.on("entry", (entry: ReadEntry) => {
    const keep = isFile(entry.type) && entry.size <= maxBytes;
    const chunks: Buffer[] = [];
    if (keep) entry.on("data", (chunk: Buffer) => chunks.push(chunk));
    else entry.resume();
    entry.on("end", () =>
      ready.push({
        name: entry.path,
        type: entry.type,
        size: entry.size,
        data: keep ? new Uint8Array(Buffer.concat(chunks)) : null,
      }),
    );
  });
  let finish = (): void => undefined;
  const ended = new Promise<void>((resolve) => {
    finish = resolve;
  });
  parser.on("error", (error: Error) => {
    failure ??= new CommandError(`Not a readable tar archive: ${error.message}`);
    finish();
  });
  parser.on("end", () => finish());
  parser.on("close", () => finish());
  for await (const chunk of input) {
    parser.write(chunk as Buffer);
    if (failure) throw failure;
    while (ready.length > 0) yield ready.shift()!;
  }
  parser.end();
  await ended;
  if (failure) throw failure;
  while (ready.length > 0) yield ready.shift()!;
}
