import type { BetaRunnableTool } from "@anthropic-ai/sdk/lib/tools/BetaRunnableTool";
import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import type { BetaTool } from "@anthropic-ai/sdk/resources/beta";
import {
  executeSearch,
  MEMORY_SEARCH_TOOL_DESCRIPTION,
  MEMORY_SEARCH_TOOL_NAME,
  memorySearchInputSchema,
  type SearchToolInputSchema,
  type SearchToolOptions,
} from "../search/tool.js";
import type { MemoryStore } from "../store.js";

/** The `memory_search` custom tool's definition as the Messages API expects it in `tools` (SPEC §9). */
export const MEMORY_SEARCH_TOOL_DEFINITION: {
  readonly name: typeof MEMORY_SEARCH_TOOL_NAME;
  readonly description: string;
  readonly input_schema: SearchToolInputSchema;
} = {
  name: MEMORY_SEARCH_TOOL_NAME,
  description: MEMORY_SEARCH_TOOL_DESCRIPTION,
  input_schema: memorySearchInputSchema(),
};

/** A runnable `memory_search` tool for the SDK's tool runner. */
export type SearchRunnableTool = BetaTool & BetaRunnableTool<unknown>;

/**
 * The `memory_search` tool as a runnable tool for `client.beta.messages.toolRunner()`, beside
 * `memoryTool`. Every call runs through `executeSearch`: the model receives SPEC §9's exact text, error
 * results with `is_error: true`.
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk";
 * import { InMemoryStore } from "@mem/core";
 * import { memoryTool, searchTool } from "@mem/core/anthropic";
 *
 * const store = new InMemoryStore();
 * const reply = await new Anthropic().beta.messages.toolRunner({
 *   model: "claude-sonnet-5-5",
 *   max_tokens: 2048,
 *   tools: [memoryTool(store), searchTool(store)],
 *   messages: [{ role: "user", content: "Which tea do I like?" }],
 * });
 * ```
 */
export const searchTool = (store: MemoryStore, options: SearchToolOptions = {}): SearchRunnableTool => ({
  ...MEMORY_SEARCH_TOOL_DEFINITION,
  input_schema: { ...memorySearchInputSchema() },
  parse: (input: unknown): unknown => input,
  run: async (input: unknown): Promise<string> => {
    const outcome = await executeSearch(store, input, options);
    if (outcome.isError) throw new ToolError(outcome.content);
    return outcome.content;
  },
});
