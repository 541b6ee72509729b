/**
 * The one count of what a store (or a tenant) holds, which every surface reports (`mem tree`, `mem du`,
 * `mem tenants`, the console): the files and bytes its quotas count (SPEC §7: every file the model can
 * address, hidden ones included, no bookkeeping), and beside them the bytes `@mem/history` keeps, which
 * quotas do not count.
 */
import { isSameOrInside, type MemoryStore, ROOT, usageOf } from "@mem/core";
import { HISTORY_NAME, HistoryStore } from "@mem/history";

const HISTORY_DIR = `${ROOT}/${HISTORY_NAME}`;
const RESERVED = ".mem-";

export interface StoreCount {
  /** Files as quotas count them. */
  files: number;
  /** Their bytes. */
  bytes: number;
  /** Bytes of the versions history keeps (0 without history); not counted by quotas. */
  historyBytes: number;
  /** False when the store could only be walked through listings, which leave hidden files out. */
  complete: boolean;
}

/** `store`, wrapped in `HistoryStore` when it holds versions (one `stat`), so history is told apart. */
export const withKeptHistory = async (store: MemoryStore): Promise<MemoryStore> => {
  if (store instanceof HistoryStore) return store;
  return (await store.stat(HISTORY_DIR))?.kind === "directory" ? new HistoryStore(store) : store;
};

/**
 * Counts `store` (a store or a tenant's scope, opened as `openStore` opens it or unwrapped): its own
 * `usage()` through `HistoryStore` when it keeps one (a counter or one query, as quotas read it);
 * otherwise its `files()`, leaving out bookkeeping (every `.mem-` name) and adding up history's apart;
 * otherwise its listings (`complete: false`).
 *
 * @example
 * ```ts
 * import { countStore, openStore } from "@mem/open";
 *
 * const store = await openStore("fs:./memory-demo");
 * const { files, bytes, historyBytes } = await countStore(store);
 * await store.close?.();
 * ```
 */
export const countStore = async (store: MemoryStore): Promise<StoreCount> => {
  const kept = await withKeptHistory(store);
  if (kept.usage) {
    const { files, bytes, historyBytes = 0 } = await kept.usage();
    return { files, bytes, historyBytes, complete: true };
  }
  if (store.files) {
    const count: StoreCount = { files: 0, bytes: 0, historyBytes: 0, complete: true };
    for (const file of await store.files()) {
      if (isSameOrInside(file.path, HISTORY_DIR)) count.historyBytes += file.size;
      else if (!file.path.split("/").some((name) => name.startsWith(RESERVED))) {
        count.files += 1;
        count.bytes += file.size;
      }
    }
    return count;
  }
  const { files, bytes } = await usageOf(kept);
  return { files, bytes, historyBytes: 0, complete: false };
};
