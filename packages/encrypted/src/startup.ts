/** Key start-up: libsodium loaded, passphrase keys derived, and every key checked against its record. */
import { randomBytes } from "node:crypto";
import { type MemoryStore, updateWithRetry } from "@mem/core";
import { type Cipher, integrityError, keyIdOf, open, seal } from "./format.js";
import { derivePassphraseKeys, type KdfParams } from "./kdf.js";
import type { KeySource } from "./keys.js";
import { keyCheckPath } from "./reserved.js";
import { loadSodium } from "./sodium.js";

/** The cipher of a root store: its keys by id, the first source's id active. */
export const startCipher = async (
  inner: MemoryStore,
  sources: readonly KeySource[],
  kdf: KdfParams,
  context: Uint8Array,
  closed: boolean,
  readOnly = false,
): Promise<Cipher> => {
  const sodium = await loadSodium();
  const passphrases = sources.flatMap((s) => ("passphrase" in s ? [s] : []));
  const derived = await derivePassphraseKeys(
    inner,
    passphrases,
    kdf,
    (n) => Uint8Array.from(randomBytes(n)),
    readOnly,
  );
  const keys = new Map(
    sources.map((s) => [s.id, "bytes" in s ? Uint8Array.from(s.bytes) : derived.get(s.id)!]),
  );
  const cipher: Cipher = { sodium, context, keys, activeId: sources[0]!.id, closed };
  for (const { id } of sources) {
    if (readOnly) await checkRecordedKey(inner, cipher, id);
    else await checkKey(inner, cipher, id);
  }
  return cipher;
};

const keyMismatch = (id: string) =>
  integrityError(`key "${id}" does not match the key this store recorded under that id`);

/**
 * The check of a reader, which writes nothing: a key with a record must match it; a key id without one
 * has encrypted nothing yet (the first write under an id records it), so it has nothing to be wrong about.
 */
const checkRecordedKey = async (inner: MemoryStore, cipher: Cipher, id: string): Promise<void> => {
  const path = keyCheckPath(id);
  const existing = await inner.read(path);
  if (!existing) return;
  try {
    if (keyIdOf(existing.data) === id && open(cipher, existing.data, path).length === 0) return;
  } catch {
    // reported below without details that could help guess the key
  }
  throw keyMismatch(id);
};

/**
 * Each key id gets a small check file the first time it is used, so a wrong key or passphrase under a
 * known id is refused at start instead of silently mixing keys in one store.
 */
const checkKey = async (inner: MemoryStore, cipher: Cipher, id: string): Promise<void> => {
  const path = keyCheckPath(id);
  await updateWithRetry(inner, path, (existing) => {
    if (!existing) return seal(cipher, new Uint8Array(0), path, id);
    try {
      if (keyIdOf(existing.data) === id && open(cipher, existing.data, path).length === 0) return null;
    } catch {
      // reported below without details that could help guess the key
    }
    throw keyMismatch(id);
  });
};
