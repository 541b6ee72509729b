/** The tool set of the memory tools, to spread into `tools` under the names Claude calls them by. */
import type { MemoryStore } from "@mem/core";
import { type MemoryToolOptions, memoryTool } from "./memory-tool.js";

// Each tool under the name the provider declares it with: the AI SDK looks a call up by its key, so a
// tool under any other key fails every call (AI_NoSuchToolError). A new tool is one line here.
const TOOLS = {
  memory: memoryTool,
} as const;

/** The options every tool of {@link memoryTools} takes. */
export type MemoryToolsOptions = MemoryToolOptions;

/** What {@link memoryTools} returns: each tool under its required key. */
export type MemoryTools = { [K in keyof typeof TOOLS]: ReturnType<(typeof TOOLS)[K]> };

/**
 * The memory tools on `store`, each under the key Claude calls it by (`{ memory }`), to spread into
 * `generateText`'s or `streamText`'s `tools`. Call it per conversation, like `memoryTool`.
 *
 * @example
 * ```ts
 * const { text } = await generateText({ model, tools: { ...memoryTools(store) }, prompt });
 * ```
 */
export const memoryTools = (store: MemoryStore, options: MemoryToolsOptions = {}): MemoryTools =>
  Object.fromEntries(
    Object.entries(TOOLS).map(([name, make]) => [name, make(store, options)]),
  ) as MemoryTools;
