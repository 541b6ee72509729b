/** `memory_search` (SPEC §9) for the AI SDK: a custom tool beside the memory tool, run against a store. */
import {
  executeSearch,
  MEMORY_SEARCH_TOOL_DESCRIPTION,
  type MemoryStore,
  memorySearchInputSchema,
  type SearchToolOptions,
  type ToolResult,
} from "@mem/core";
import { jsonSchema, type Tool, tool } from "ai";
import { toModelOutput } from "./memory-tool.js";

/** The tool `memorySearchTool` returns: raw input in, `executeSearch`'s result out. */
export type MemorySearchTool = Tool<unknown, ToolResult>;

/**
 * `memory_search` for `generateText` and `streamText`: register it under the name `memory_search`
 * beside `memoryTool`. The schema tells the model SPEC §9's parameters; the engine checks the raw input
 * itself, so malformed input gets SPEC §9's error results (sent with `is_error: true`).
 *
 * @example
 * ```ts
 * import { anthropic } from "@ai-sdk/anthropic";
 * import { memorySearchTool, memoryTool } from "@mem/ai-sdk";
 * import { generateText, stepCountIs } from "ai";
 *
 * const { text } = await generateText({
 *   model: anthropic("claude-sonnet-4-5"),
 *   tools: { memory: memoryTool(store), memory_search: memorySearchTool(store) },
 *   stopWhen: stepCountIs(10),
 *   prompt: "Which tea do I like?",
 * });
 * ```
 */
export const memorySearchTool = (store: MemoryStore, options: SearchToolOptions = {}): MemorySearchTool =>
  tool({
    description: MEMORY_SEARCH_TOOL_DESCRIPTION,
    inputSchema: jsonSchema<unknown>(memorySearchInputSchema()),
    execute: (input: unknown): Promise<ToolResult> => executeSearch(store, input, options),
    toModelOutput: ({ output }: { output: ToolResult }) => toModelOutput(output),
  }) as MemorySearchTool;
