/**
 * The unlisted-file index: inner stores do not list hidden or `node_modules` paths, so the wrapper
 * records every such path it writes, to find them again for renames and rotation.
 */
import { isListedName, isSameOrInside, type MemoryStore, segmentsOf } from "@mem/core";
import type { Cipher } from "./format.js";
import { readPathSet, updatePathSet } from "./path-set.js";
import { UNLISTED_INDEX_PATH } from "./reserved.js";

/** Paths are at most 1024 bytes, so no tree is deeper than this. */
export const ALL_DEPTHS = 1024;

export const isUnlistedPath = (path: string): boolean => !segmentsOf(path).every(isListedName);

/** Every file beneath `dir` written through this wrapper, hidden ones included. */
export const filesBeneath = async (inner: MemoryStore, cipher: Cipher, dir: string): Promise<string[]> => {
  const listing = await inner.list(dir, ALL_DEPTHS);
  const listed = listing?.entries.filter((e) => e.kind === "file").map((e) => e.path) ?? [];
  const unlisted = (await readPathSet(inner, cipher, UNLISTED_INDEX_PATH)).filter(
    (p) => p !== dir && isSameOrInside(p, dir),
  );
  return [...new Set([...listed, ...unlisted])];
};

/** The file at `path`, or every file beneath it when it is a directory. */
export const filesBeneathOrAt = async (
  inner: MemoryStore,
  cipher: Cipher,
  path: string,
): Promise<string[]> => {
  const stat = await inner.stat(path);
  return stat?.kind === "file" ? [path] : stat ? filesBeneath(inner, cipher, path) : [];
};

export const recordUnlisted = async (
  inner: MemoryStore,
  cipher: Cipher,
  paths: readonly string[],
): Promise<void> => {
  if (paths.length > 0) await updatePathSet(inner, cipher, UNLISTED_INDEX_PATH, { add: paths });
};

/**
 * Removes the index entries at or beneath `path` once its files are gone (deleted or moved away), so
 * the index holds no more than the hidden files that exist. A file written there again meanwhile (its
 * writer recorded it before our removal) is found by the check that follows and put back.
 */
export const forgetUnlisted = async (inner: MemoryStore, cipher: Cipher, path: string): Promise<void> => {
  const removed = await updatePathSet(inner, cipher, UNLISTED_INDEX_PATH, { removeBeneath: [path] });
  const back: string[] = [];
  for (const p of removed) if (await inner.stat(p)) back.push(p);
  await recordUnlisted(inner, cipher, back);
};
