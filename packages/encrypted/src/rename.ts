/**
 * Renames through the wrapper. Ciphertexts are bound to their paths, so moved files are re-encrypted:
 * a file by copy, claim and delete; a directory by journal, inner move and re-encryption in place.
 */
import { randomBytes } from "node:crypto";
import {
  ConflictError,
  type FileData,
  isStoreError,
  type MemoryStore,
  NotFoundError,
  rebase,
  StoreFailureError,
} from "@mem/core";
import { type Cipher, IntegrityError, integrityError, seal } from "./format.js";
import { newMove } from "./moves.js";
import { updatePathSet } from "./path-set.js";
import { finishMove, openAnywhere } from "./recovery.js";
import { claimPath, RENAME_JOURNAL_PATH } from "./reserved.js";
import { filesBeneath, forgetUnlisted, isUnlistedPath, recordUnlisted } from "./unlisted.js";

const MAX_ATTEMPTS = 50;

/** Renames the file or directory at `from` to `to`; see `EncryptedStore.rename`. */
export const renamePath = async (
  inner: MemoryStore,
  cipher: Cipher,
  from: string,
  to: string,
): Promise<void> => {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const file = await inner.read(from);
    if (file) {
      await renameFile(inner, cipher, from, to, file);
      if (isUnlistedPath(from)) await forgetUnlisted(inner, cipher, from);
      return;
    }
    const stat = await inner.stat(from);
    if (!stat) throw new NotFoundError(from);
    // A file that appeared since the read is read again.
    if (stat.kind === "directory") return renameDirectory(inner, cipher, from, to);
  }
  throw new ConflictError(from);
};

const renameFile = async (
  inner: MemoryStore,
  cipher: Cipher,
  from: string,
  to: string,
  file: FileData,
): Promise<void> => {
  const plain = await openAnywhere(inner, cipher, file.data, from);
  if (isUnlistedPath(to)) await recordUnlisted(inner, cipher, [to]);
  const copy = await inner.write(to, seal(cipher, plain, to), { ifAbsent: true });
  const claim = claimPath(from);
  try {
    await inner.rename(from, claim);
  } catch (error) {
    // Another rename or a delete took the source first: this rename never happened.
    if (isStoreError(error, "NOT_FOUND")) await inner.delete(to);
    throw error;
  }
  const claimed = await inner.read(claim);
  if (claimed && !sameBytes(claimed.data, file.data)) {
    const latest = await openAnywhere(inner, cipher, claimed.data, from);
    try {
      await inner.write(to, seal(cipher, latest, to), { ifVersion: copy.version });
    } catch (error) {
      if (!isStoreError(error, "CONFLICT")) throw error;
      // Both paths were edited while the rename ran; losing neither edit beats finishing the move.
      await inner.rename(claim, from);
      throw new StoreFailureError(`${from} and ${to} were both edited during the rename; both were kept`);
    }
  }
  await inner.delete(claim);
};

const renameDirectory = async (
  inner: MemoryStore,
  cipher: Cipher,
  from: string,
  to: string,
): Promise<void> => {
  const moving = await filesBeneath(inner, cipher, from);
  // A file that cannot be opened (tampered, or under a key the keyring lacks) would be stranded at its
  // new path, bound to the old one; refuse before anything moves.
  for (const path of moving) {
    const file = await inner.read(path);
    if (!file) continue;
    try {
      await openAnywhere(inner, cipher, file.data, path);
    } catch (error) {
      if (error instanceof IntegrityError) throw integrityError(`${path}: ${error.detail}`);
      throw error;
    }
  }
  // Hidden files keep their place in the unlisted index under their new paths.
  await recordUnlisted(inner, cipher, moving.map((p) => rebase(p, from, to)).filter(isUnlistedPath));
  const move = newMove(from, to, randomBytes(12).toString("hex"));
  await updatePathSet(inner, cipher, RENAME_JOURNAL_PATH, { add: [move.entry] });
  try {
    await inner.rename(from, to);
  } catch (error) {
    // A refused rename moved nothing; after an outage, files may have moved, so recovery keeps the entry.
    if (!isStoreError(error, "STORE_FAILURE")) {
      await updatePathSet(inner, cipher, RENAME_JOURNAL_PATH, { remove: [move.entry] });
    }
    throw error;
  }
  await finishMove(inner, cipher, move);
  if (moving.some(isUnlistedPath)) await forgetUnlisted(inner, cipher, from);
};

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);
