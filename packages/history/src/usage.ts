/** What a `HistoryStore` reports as used: the model's files and bytes, and history's bytes beside them. */
import type { MemoryStore, Usage } from "@mem/core";
import { TOTAL_FILE } from "./layout.js";
import { parseTotal } from "./versions.js";

/**
 * `usage` of a `HistoryStore` over `usage`, the wrapped store's: history's own files (versions, the
 * change log, bookkeeping) left out of the files and bytes, and reported as `historyBytes`. With a second
 * store (`own` false), its running total (one read) instead of a walk of it on every quota check.
 */
export const usageWithHistory =
  (usage: () => Promise<Usage>, history: MemoryStore, base: string, own: boolean): (() => Promise<Usage>) =>
  async () => {
    const total = await usage();
    if (!own) {
      const counted = await history.read(`${base}/${TOTAL_FILE}`);
      const side = (counted && parseTotal(counted.data)) ?? (await history.list(base, 2))?.size ?? 0;
      return { files: total.files, bytes: total.bytes, historyBytes: side };
    }
    const kept = await history.list(base, 2);
    const files = kept?.entries.filter((e) => e.kind === "file").length ?? 0;
    const historyBytes = kept?.size ?? 0;
    return { files: total.files - files, bytes: total.bytes - historyBytes, historyBytes };
  };
