/**
 * `mem verify URL --against ARCHIVE`: proves that a store holds exactly what an archive `mem export`
 * wrote: the same files that travel (travel.ts) for the store and the archive's tenants, hidden ones and
 * history's versions included, with the same bytes.
 */
import { createReadStream } from "node:fs";
import { access, constants } from "node:fs/promises";
import { resolve } from "node:path";
import type { MemoryStore } from "@mem/core";
import { checkArchive, digestOf, fileKey } from "./archive-check.js";
import { CommandError } from "./context.js";
import { departure } from "./travel.js";

export interface Comparison {
  /** Files that match, and their bytes. */
  files: number;
  bytes: number;
  /** Of them, files under `.mem-history` (versions, their path records and tombstones). */
  history: number;
  /** In the archive, not in the store. */
  missing: string[];
  /** In the store, not in the archive. */
  extra: string[];
  /** In both, with other bytes. */
  differing: string[];
}

const shown = (tenant: string | undefined, path: string): string =>
  tenant === undefined ? path : `${path} (tenant ${tenant})`;

/** Reads the archive (every file in it, no size limit, no guard) and compares `store` with it. */
export const compareWithArchive = async (
  store: MemoryStore,
  file: string,
  cwd: string,
): Promise<Comparison> => {
  const path = resolve(cwd, file);
  try {
    await access(path, constants.R_OK);
  } catch {
    throw new CommandError(`Cannot read the archive ${file}.`, 2);
  }
  const archive = await checkArchive(createReadStream(path), {
    maxFileBytes: Number.MAX_SAFE_INTEGER,
    guard: null,
  });
  const expected = new Map(archive.files.map((f) => [fileKey(f.tenant, f.path), f]));
  const here = await departure(store, archive.allTenants);
  const result: Comparison = { files: 0, bytes: 0, history: 0, missing: [], extra: [], differing: [] };
  for (const { tenant, path: at } of here.files) {
    const key = fileKey(tenant, at);
    const wanted = expected.get(key);
    expected.delete(key);
    const data = (await here.store(tenant).read(at))?.data;
    if (!data) {
      if (wanted) result.missing.push(shown(tenant, at));
      continue;
    }
    if (!wanted) result.extra.push(shown(tenant, at));
    else if (digestOf(data) !== wanted.digest) result.differing.push(shown(tenant, at));
    else {
      result.files++;
      result.bytes += data.byteLength;
      if (at.split("/").includes(".mem-history")) result.history++;
    }
  }
  for (const left of expected.values()) result.missing.push(shown(left.tenant, left.path));
  return result;
};
