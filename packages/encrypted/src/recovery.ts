/**
 * The rename journal's reader side: opening files still bound to the path a pending directory rename
 * moved them from, re-encrypting them for their new paths, and finishing renames a crash interrupted.
 */
import { type MemoryStore, updateWithRetry } from "@mem/core";
import { type Cipher, IntegrityError, open, seal } from "./format.js";
import { formerPaths, type Move, parseMove } from "./moves.js";
import { readPathSet, updatePathSet } from "./path-set.js";
import { RENAME_JOURNAL_PATH } from "./reserved.js";
import { filesBeneathOrAt } from "./unlisted.js";

/**
 * A journal entry whose source still exists and whose destination never appeared may belong to a rename
 * about to move on another instance; after this long it is taken as abandoned (crashed before the move).
 */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

export const pendingMoves = async (inner: MemoryStore, cipher: Cipher): Promise<Move[]> => {
  const entries = await readPathSet(inner, cipher, RENAME_JOURNAL_PATH);
  return entries.flatMap((entry) => parseMove(entry) ?? []);
};

/** Opens a ciphertext found at `path`, or at a path one of `moves` moved it from. */
export const openMoved = (
  cipher: Cipher,
  data: Uint8Array,
  path: string,
  moves: readonly Move[],
): Uint8Array => {
  try {
    return open(cipher, data, path);
  } catch (error) {
    if (!(error instanceof IntegrityError)) throw error;
    for (const former of formerPaths(path, moves)) {
      try {
        return open(cipher, data, former);
      } catch {
        // try the next candidate; the first error is the one worth reporting
      }
    }
    throw error;
  }
};

/** Opens a ciphertext found at `path`, or at a path a pending rename moved it from. */
export const openAnywhere = async (
  inner: MemoryStore,
  cipher: Cipher,
  data: Uint8Array,
  path: string,
  moves?: readonly Move[],
): Promise<Uint8Array> => {
  try {
    return open(cipher, data, path);
  } catch (error) {
    if (!(error instanceof IntegrityError)) throw error;
    return openMoved(cipher, data, path, moves ?? (await pendingMoves(inner, cipher)));
  }
};

/**
 * Re-encrypts the file at `path` for that path if it is still bound to a former one. A file that
 * opens nowhere (tampered, or not written through this wrapper) is left as it is: reads report it.
 */
const rebind = async (
  inner: MemoryStore,
  cipher: Cipher,
  path: string,
  moves: readonly Move[],
): Promise<void> => {
  await updateWithRetry(inner, path, async (file) => {
    if (!file) return null;
    try {
      open(cipher, file.data, path);
      return null;
    } catch {
      try {
        return seal(cipher, await openAnywhere(inner, cipher, file.data, path, moves), path);
      } catch (error) {
        if (error instanceof IntegrityError) return null;
        throw error;
      }
    }
  });
};

/** Re-encrypts every moved file for its new path, then clears the journal entry. */
export const finishMove = async (inner: MemoryStore, cipher: Cipher, move: Move): Promise<void> => {
  // This move counts even if a recovering instance has already cleared its entry.
  const moves = [move, ...(await pendingMoves(inner, cipher)).filter((m) => m.entry !== move.entry)];
  for (const path of await filesBeneathOrAt(inner, cipher, move.to)) await rebind(inner, cipher, path, moves);
  await updatePathSet(inner, cipher, RENAME_JOURNAL_PATH, { remove: [move.entry] });
};

/**
 * Finishes each journaled rename whose source is gone (the inner move happened). While the source
 * still exists the rename may be in flight elsewhere, or cut off inside a non-atomic inner rename:
 * files already at the destination are re-encrypted and the entry stays. An entry whose destination
 * never appeared is dropped once old enough to be abandoned, so old-path ciphertexts stop opening there.
 * Returns how many renames it finished.
 */
export const recoverMoves = async (inner: MemoryStore, cipher: Cipher): Promise<number> => {
  let finished = 0;
  for (const move of await pendingMoves(inner, cipher)) {
    if (!(await inner.stat(move.from))) {
      await finishMove(inner, cipher, move);
      finished++;
    } else if (await inner.stat(move.to)) {
      const moves = await pendingMoves(inner, cipher);
      for (const path of await filesBeneathOrAt(inner, cipher, move.to))
        await rebind(inner, cipher, path, moves);
    } else if (Date.now() - move.startedAt > ABANDONED_AFTER_MS) {
      await updatePathSet(inner, cipher, RENAME_JOURNAL_PATH, { remove: [move.entry] });
    }
  }
  return finished;
};
