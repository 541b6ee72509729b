/** Key rotation: every file re-encrypted under the active key, one atomic switch per file. */
import { type MemoryStore, ROOT, updateWithRetry } from "@mem/core";
import { type Cipher, keyIdOf, seal } from "./format.js";
import { openAnywhere, recoverMoves } from "./recovery.js";
import { RENAME_JOURNAL_PATH, UNLISTED_INDEX_PATH } from "./reserved.js";
import { filesBeneath } from "./unlisted.js";

export interface RotationOptions {
  /** Stops the rotation between two files; run `rotate()` again to continue where it stopped. */
  signal?: AbortSignal;
}

export interface RotationReport {
  /** Files re-encrypted under the active key by this run. */
  rotated: number;
  /** Files that were already under the active key. */
  current: number;
}

/** Finishes interrupted renames, then re-encrypts every file not yet under the active key. */
export const rotateAll = async (
  inner: MemoryStore,
  cipher: Cipher,
  options: RotationOptions,
): Promise<RotationReport> => {
  const report: RotationReport = { rotated: 0, current: 0 };
  await recoverMoves(inner, cipher);
  const files = [...(await filesBeneath(inner, cipher, ROOT)), UNLISTED_INDEX_PATH, RENAME_JOURNAL_PATH];
  for (const path of files) {
    options.signal?.throwIfAborted();
    const outcome = await rotateFile(inner, cipher, path);
    if (outcome !== "missing") report[outcome]++;
  }
  return report;
};

const rotateFile = async (
  inner: MemoryStore,
  cipher: Cipher,
  path: string,
): Promise<"rotated" | "current" | "missing"> => {
  let outcome: "rotated" | "current" | "missing" = "missing";
  await updateWithRetry(inner, path, async (file) => {
    outcome = !file ? "missing" : keyIdOf(file.data) === cipher.activeId ? "current" : "rotated";
    if (!file || outcome === "current") return null;
    return seal(cipher, await openAnywhere(inner, cipher, file.data, path), path);
  });
  return outcome;
};
