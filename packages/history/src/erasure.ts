/** Erasure of a `HistoryStore`'s tenant: the files, every version, the change log. */
import type { MemoryStore, PurgeOptions, PurgeResult } from "@mem/core";
import { timeOfVersionId } from "./layout.js";

/**
 * `purge` of a `HistoryStore` over `purge`, the wrapped store's: the files and the history beside them
 * go together; with a second store (`side`), that store is purged too. `versions` counts the versions
 * removed; `files` and `bytes` the model's files only.
 */
export const purgeWithHistory = (
  purge: (options?: PurgeOptions) => Promise<PurgeResult>,
  history: MemoryStore,
  base: string,
  side: MemoryStore | undefined,
): ((options?: PurgeOptions) => Promise<PurgeResult>) => {
  return async (options?: PurgeOptions) => {
    if (side && !side.purge) throw new TypeError("history must have purge() to purge a HistoryStore");
    // Counted before: the versions and bookkeeping beside the files are not the model's files.
    const kept = await history.list(base, 2);
    const versions = (kept?.entries ?? []).filter(
      (e) => e.kind === "file" && timeOfVersionId(e.path.slice(e.path.lastIndexOf("/") + 1)) !== null,
    ).length;
    const result = await purge(options);
    if (side?.purge) {
      await side.purge(options);
      return { files: result.files, bytes: result.bytes, versions };
    }
    const files = (kept?.entries ?? []).filter((e) => e.kind === "file").length;
    return {
      files: Math.max(0, result.files - files),
      bytes: Math.max(0, result.bytes - (kept?.size ?? 0)),
      versions,
    };
  };
};
