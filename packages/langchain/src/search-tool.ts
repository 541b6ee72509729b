/** `memory_search` (SPEC §9) for LangChain: a structured tool beside the memory tool, run against a store. */
import { ToolMessage } from "@langchain/core/messages";
import { type DynamicStructuredTool, tool } from "@langchain/core/tools";
import {
  executeSearch,
  MEMORY_SEARCH_TOOL_DESCRIPTION,
  MEMORY_SEARCH_TOOL_NAME,
  type MemoryStore,
  memorySearchInputSchema,
  type SearchToolOptions,
} from "@mem/core";

/** The tool `memorySearchTool` returns. */
export type MemorySearchTool = DynamicStructuredTool;

/**
 * `memory_search` as a LangChain tool: bind it to `ChatAnthropic` beside `memoryTool`, and invoke it with
 * the model's tool calls (a `ToolNode` does). Invoked with a tool call it answers a `ToolMessage` whose
 * `status` is `"error"` for SPEC §9's error results; invoked with plain arguments, the result's text.
 * LangChain checks the argument types against the schema before the tool runs; everything else (an
 * empty or over-long query, an invalid pattern or path) gets SPEC §9's exact error results.
 *
 * @example
 * ```ts
 * import { ChatAnthropic } from "@langchain/anthropic";
 * import { memorySearchTool, memoryTool } from "@mem/langchain";
 *
 * const search = memorySearchTool(store);
 * const model = new ChatAnthropic({ model: "claude-sonnet-4-5" }).bindTools([memoryTool(store), search]);
 * ```
 */
export const memorySearchTool = (store: MemoryStore, options: SearchToolOptions = {}): MemorySearchTool =>
  tool(
    async (input: unknown, config?: { toolCall?: { id?: string } }) => {
      const result = await executeSearch(store, input, options);
      const id = config?.toolCall?.id;
      if (!id) return result.content;
      return new ToolMessage({
        content: result.content,
        tool_call_id: id,
        name: MEMORY_SEARCH_TOOL_NAME,
        status: result.isError ? "error" : "success",
      });
    },
    {
      name: MEMORY_SEARCH_TOOL_NAME,
      description: MEMORY_SEARCH_TOOL_DESCRIPTION,
      schema: memorySearchInputSchema(),
    },
  ) as MemorySearchTool;
