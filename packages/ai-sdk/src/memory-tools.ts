/** The tool set of the memory tools, to spread into `tools` under the names Claude calls them by. */
import type { MemoryStore } from "@mem/core";
import { type MemoryTool, type MemoryToolOptions, memoryTool } from "./memory-tool.js";
import { type MemorySearchTool, memorySearchTool } from "./search-tool.js";

/** The options every tool of {@link memoryTools} takes, and `search` to add `memory_search`. */
export type MemoryToolsOptions = MemoryToolOptions & {
  /** Add `memory_search` (SPEC §9) beside the memory tool. Default `false`. */
  search?: boolean;
};

/** What {@link memoryTools} returns: each tool under its required key. */
export type MemoryTools = { memory: MemoryTool; memory_search?: MemorySearchTool };

/**
 * The memory tools on `store`, each under the key Claude calls it by (`{ memory }`, and `memory_search`
 * with `{ search: true }`), to spread into `generateText`'s or `streamText`'s `tools`: the AI SDK looks a
 * call up by its key, so a tool under any other key fails every call (AI_NoSuchToolError). Call it per
 * conversation, like `memoryTool`.
 *
 * @example
 * ```ts
 * const { text } = await generateText({ model, tools: { ...memoryTools(store, { search: true }) }, prompt });
 * ```
 */
export const memoryTools = (store: MemoryStore, options: MemoryToolsOptions = {}): MemoryTools => {
  const { search = false, ...execute } = options;
  if (typeof search !== "boolean") throw new TypeError("memoryTools: the search option must be a boolean");
  const memory = memoryTool(store, execute);
  if (!search) return { memory };
  const { viewCharLimit, onUnexpectedError } = execute;
  return {
    memory,
    memory_search: memorySearchTool(store, {
      ...(viewCharLimit === undefined ? {} : { viewCharLimit }),
      ...(onUnexpectedError === undefined ? {} : { onUnexpectedError }),
    }),
  };
};
