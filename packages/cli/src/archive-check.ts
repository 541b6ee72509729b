/**
 * The first reading of an archive to import: every entry is checked, and the whole archive refused with
 * the reasons, before the store is even opened. Refused: links, devices, absolute paths, `..`, names
 * outside `memories/` (or a tenant's `tenants/<id>/memories/`) or invalid as memory paths, bookkeeping
 * that never travels (travel.ts), a name twice, a name that is a file and a directory, files above the
 * size limit, an archive of a newer format, and (unless allowed) files the sensitive-data guard would
 * refuse. Reserved names that travel (`.mem-history`, an application's marker) are accepted.
 */
import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { ancestorsOf, checkTenant, type Guard, guardText, ROOT } from "@mem/core";
import {
  ARCHIVE_VERSION,
  type ArchiveEntry,
  MANIFEST_NAME,
  readArchive,
  TENANTS_DIR,
  TOP,
} from "./archive.js";
import { CommandError } from "./context.js";
import { checkTravellingPath } from "./travel.js";

/** A file of the archive, checked, without its bytes. */
export interface CheckedFile {
  /** The tenant it belongs to; `undefined`: the store itself. */
  tenant?: string;
  path: string;
  size: number;
  /** sha256 of the bytes, hex. */
  digest: string;
}

/** What an archive holds, checked. */
export interface CheckedArchive {
  /** The format version (0: an archive without manifest, as the first `mem export` wrote). */
  version: number;
  /** Whether it holds every tenant of the store it came from (`mem export --all-tenants`). */
  allTenants: boolean;
  files: CheckedFile[];
}

export interface ArchiveChecks {
  /** Largest file accepted, in bytes. */
  maxFileBytes: number;
  /** The sensitive-data guard files must pass; `null`: none. */
  guard: Guard | null;
}

export const digestOf = (data: Uint8Array): string => createHash("sha256").update(data).digest("hex");

const SHOWN_REFUSALS = 5;

/** The key of a file among all the archive's tenants. */
export const fileKey = (tenant: string | undefined, path: string): string => `${tenant ?? ""}\u0000${path}`;

/**
 * Reads `input` once and returns its format version and files in archive order, or throws
 * `CommandError` with every refusal.
 */
export const checkArchive = async (input: Readable, checks: ArchiveChecks): Promise<CheckedArchive> => {
  const files: CheckedFile[] = [];
  const refusals: string[] = [];
  const seen = new Map<string, string>(); // fileKey → name in the archive
  let version = 0;
  let allTenants = false;
  for await (const entry of readArchive(input, checks.maxFileBytes)) {
    if (entry.name === MANIFEST_NAME) {
      const manifest = readManifest(entry);
      if ("refused" in manifest) refusals.push(manifest.refused);
      else ({ version, allTenants } = manifest);
      continue;
    }
    const verdict = checkEntry(entry, checks);
    if ("refused" in verdict) refusals.push(verdict.refused);
    if (!("path" in verdict)) continue;
    const { path, tenant } = verdict;
    const key = fileKey(tenant, path);
    if (seen.has(key)) {
      refusals.push(`"${entry.name}" appears twice`);
      continue;
    }
    seen.set(key, entry.name);
    files.push({
      ...(tenant !== undefined && { tenant }),
      path,
      size: entry.size,
      digest: digestOf(entry.data!),
    });
  }
  // A name both a file and the directory of another file cannot be written whole.
  for (const { path, tenant } of files) {
    for (const ancestor of ancestorsOf(path)) {
      const name = seen.get(fileKey(tenant, ancestor));
      if (ancestor !== ROOT && name !== undefined) {
        refusals.push(
          `"${name}" is a file, but "${seen.get(fileKey(tenant, path))}" needs it to be a directory`,
        );
      }
    }
  }
  if (refusals.length > 0) {
    const shown = refusals.slice(0, SHOWN_REFUSALS).join("; ");
    const more = refusals.length > SHOWN_REFUSALS ? ` (and ${refusals.length - SHOWN_REFUSALS} more)` : "";
    throw new CommandError(`The archive was refused and nothing was imported: ${shown}${more}.`);
  }
  return { version, allTenants, files };
};

const readManifest = (
  entry: ArchiveEntry,
): { version: number; allTenants: boolean } | { refused: string } => {
  let manifest: unknown;
  try {
    manifest = entry.data === null ? null : JSON.parse(new TextDecoder().decode(entry.data));
  } catch {
    manifest = null;
  }
  const { format, version, allTenants } = (manifest ?? {}) as Record<string, unknown>;
  if (
    format !== "mem-archive" ||
    typeof version !== "number" ||
    !Number.isSafeInteger(version) ||
    version < 1
  ) {
    return { refused: `"${MANIFEST_NAME}" is not a mem archive manifest` };
  }
  if (version > ARCHIVE_VERSION) {
    return {
      refused: `the archive is of format ${version}, newer than this mem reads (${ARCHIVE_VERSION}); import it with a newer mem`,
    };
  }
  return { version, allTenants: allTenants === true };
};

type Verdict = { path: string; tenant?: string } | { skip: true } | { refused: string };

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
  let tenant: string | undefined;
  let within = name;
  if (segments[0] === TENANTS_DIR) {
    if (segments.length <= 2)
      return entry.type === "Directory" ? { skip: true } : refuse(name, "is not in a tenant's folder");
    try {
      tenant = decodeURIComponent(segments[1]!);
      checkTenant(tenant);
    } catch {
      return refuse(name, "names no valid tenant id");
    }
    within = segments.slice(2).join("/");
    if (segments[2] !== TOP) return refuse(name, `is outside ${TENANTS_DIR}/<tenant>/${TOP}/`);
  } else if (segments[0] !== TOP) return refuse(name, `is outside ${TOP}/`);
  if (entry.type === "Directory") return { skip: true };
  const check = checkTravellingPath(`/${within}`);
  if (!check.ok) return refuse(name, `is not a valid memory path (${check.why})`);
  if (check.path === ROOT) return refuse(name, `is a file where the ${TOP} directory belongs`);
  if (entry.data === null) {
    return refuse(
      name,
      `is ${entry.size} bytes, more than the limit of ${checks.maxFileBytes} (--max-file-bytes)`,
    );
  }
  // Versions too: a restored version is text the model can read again.
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
  return { path: check.path, ...(tenant !== undefined && { tenant }) };
};

/**
 * The files of `input` for writing, one at a time, after `checkArchive` accepted it: each must be the
 * file checked then, with the same bytes (an archive changed in between stops the import).
 */
export async function* checkedFiles(
  input: Readable,
  files: readonly CheckedFile[],
  maxFileBytes: number,
): AsyncGenerator<{ tenant?: string; path: string; data: Uint8Array }> {
  let next = 0;
  for await (const entry of readArchive(input, maxFileBytes)) {
    if (entry.type === "Directory" || entry.name === MANIFEST_NAME) continue;
    const expected = files[next++];
    if (!expected || entry.data === null || digestOf(entry.data) !== expected.digest) {
      throw new CommandError("The archive changed while it was being imported; run mem import again.");
    }
    yield {
      ...(expected.tenant !== undefined && { tenant: expected.tenant }),
      path: expected.path,
      data: entry.data,
    };
  }
  if (next !== files.length) {
    throw new CommandError("The archive changed while it was being imported; run mem import again.");
  }
}
