/**
 * A set of paths kept as one encrypted JSON file in the inner store, updated with conditional writes so
 * concurrent instances never drop each other's changes. Used for the unlisted-file index and the rename
 * journal.
 */
import { AlreadyExistsError, ConflictError, type MemoryStore, StoreFailureError } from "@mem/core";
import { type Cipher, integrityError, open, seal } from "./format.js";

const MAX_ATTEMPTS = 50;

const decode = (cipher: Cipher, data: Uint8Array, path: string): string[] => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(open(cipher, data, path)));
  } catch (error) {
    if (error instanceof StoreFailureError) throw error;
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

/** Adds and removes paths in one conditional update, retrying lost races; no write when nothing changes. */
export const updatePathSet = async (
  inner: MemoryStore,
  cipher: Cipher,
  path: string,
  change: { add?: readonly string[]; remove?: readonly string[] },
): Promise<void> => {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await inner.read(path);
    const before = current ? decode(cipher, current.data, path) : [];
    const next = new Set(before);
    for (const p of change.remove ?? []) next.delete(p);
    for (const p of change.add ?? []) next.add(p);
    if (next.size === before.length && before.every((p) => next.has(p))) return;
    const bytes = new TextEncoder().encode(JSON.stringify([...next]));
    try {
      await inner.write(
        path,
        seal(cipher, bytes, path),
        current ? { ifVersion: current.version } : { ifAbsent: true },
      );
      return;
    } catch (error) {
      if (!(error instanceof ConflictError || error instanceof AlreadyExistsError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 2 ** attempt)));
    }
  }
  throw new StoreFailureError(`too many concurrent updates of ${path}`);
};
