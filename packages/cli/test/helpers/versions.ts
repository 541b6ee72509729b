import { executeCommand, type MemoryStore } from "@mem/core";
import { HistoryStore } from "@mem/history";

/**
 * Gives `path` two versions through @mem/history on `store`: created holding `${first}\n`, then edited
 * to `${second}\n`. Returns the history store, for reading the versions back.
 */
export const keepTwoVersions = async (
  store: MemoryStore,
  path: string,
  first: string,
  second: string,
): Promise<HistoryStore> => {
  const kept = new HistoryStore(store);
  await executeCommand(kept, { command: "create", path, file_text: `${first}\n` });
  await executeCommand(kept, { command: "str_replace", path, old_str: first, new_str: second });
  return kept;
};
