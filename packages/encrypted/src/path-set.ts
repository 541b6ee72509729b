/**
 * A set of paths kept as one encrypted JSON file in the inner store, updated with conditional writes so
 * concurrent instances never drop each other's changes. Used for the unlisted-file index and the rename
 * journal.
 */
import { isSameOrInside, isStoreError, type MemoryStore, updateWithRetry } from "@mem/core";
import { type Cipher, integrityError, open, seal } from "./format.js";

const decode = (cipher: Cipher, data: Uint8Array, path: string): string[] => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(open(cipher, data, path)));
  } catch (error) {
    if (isStoreError(error, "STORE_FAILURE")) throw error;
    throw integrityError(`${path} is malformed`);
  }
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === "string")) {
    throw integrityError(`${path} is malformed`);
  }
  return parsed;
};

export const readPathSet = async (inner: MemoryStore, cipher: Cipher, path: string): Promise<string[]> => {
  const current = await inner.read(path);
  return current ? decode(cipher, current.data, path) : [];
};

/**
 * Adds and removes paths in one conditional update, retrying lost races; no write when nothing changes.
 * `removeBeneath` removes every entry at or beneath each of its paths. Resolves with the entries removed.
 */
export const updatePathSet = async (
  inner: MemoryStore,
  cipher: Cipher,
  path: string,
  change: { add?: readonly string[]; remove?: readonly string[]; removeBeneath?: readonly string[] },
): Promise<string[]> => {
  let removed: string[] = [];
  await updateWithRetry(inner, path, (current) => {
    const before = current ? decode(cipher, current.data, path) : [];
    const next = new Set(before);
    for (const p of change.remove ?? []) next.delete(p);
    for (const dir of change.removeBeneath ?? []) {
      for (const p of before) if (isSameOrInside(p, dir)) next.delete(p);
    }
    for (const p of change.add ?? []) next.add(p);
    removed = before.filter((p) => !next.has(p));
    if (next.size === before.length && removed.length === 0) return null;
    return seal(cipher, new TextEncoder().encode(JSON.stringify([...next])), path);
  });
  return removed;
};
