import type { BetaRunnableTool } from "@anthropic-ai/sdk/lib/tools/BetaRunnableTool";
import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import type {
  BetaMemoryTool20250818,
  BetaToolResultBlockParam,
  BetaToolUseBlock,
} from "@anthropic-ai/sdk/resources/beta";
import { checkAttribution } from "../actor.js";
import {
  type ExecuteOptions,
  executeCommand,
  type MemoryStore,
  resolveGuard,
  type ToolResult,
} from "../index.js";
import { msg } from "../messages.js";
import { checkQuotaOptions } from "../quota.js";

/** The tool's definition as the Messages API expects it in `tools`. */
export const MEMORY_TOOL_DEFINITION = { type: "memory_20250818", name: "memory" } as const;

export interface MemoryToolOptions extends ExecuteOptions {
  /** Extra fields of the tool definition, e.g. `{ cache_control: { type: "ephemeral" } }`. */
  definition?: Omit<BetaMemoryTool20250818, "type" | "name">;
}

/** A runnable `memory_20250818` tool for the SDK's tool runner. */
export type MemoryRunnableTool = BetaMemoryTool20250818 & BetaRunnableTool<unknown>;

/** Runs one command; never throws. */
const runCommand = async (
  store: MemoryStore,
  input: unknown,
  options: MemoryToolOptions,
): Promise<ToolResult> => {
  const { definition: _definition, ...execute } = options;
  try {
    return await executeCommand(store, input, execute);
  } catch (error) {
    try {
      options.onUnexpectedError?.(error);
    } catch {
      // A failing hook must not turn into a thrown tool call.
    }
    return { content: msg.unexpected(), isError: true };
  }
};

/**
 * The memory tool as a runnable tool for `client.beta.messages.toolRunner()`. Throws a `TypeError` naming
 * the option when a quota option (`maxFiles`, `maxTotalBytes`) is not a positive integer. Every call runs through
 * `executeCommand`, so the model receives the exact strings of the spec; error results carry
 * `is_error: true` with their text unchanged.
 *
 * The calls of one tool run one at a time, in the order the runner starts them, which is the order the
 * model wrote them. (The runner starts all calls of a reply at once; a `create` and an edit of the same
 * file in one reply must not race.) Give each conversation its own tool so that they do not wait on
 * each other; stores keep concurrent conversations safe.
 *
 * @example
 * ```ts
 * import Anthropic from "@anthropic-ai/sdk";
 * import { InMemoryStore } from "@mem/core";
 * import { MEMORY_SYSTEM_PROMPT, memoryTool } from "@mem/core/anthropic";
 *
 * const client = new Anthropic();
 * const reply = await client.beta.messages.toolRunner({
 *   model: "claude-sonnet-5-5",
 *   max_tokens: 2048,
 *   system: MEMORY_SYSTEM_PROMPT,
 *   tools: [memoryTool(new InMemoryStore())],
 *   messages: [{ role: "user", content: "What did we decide last time?" }],
 * });
 * ```
 */
export const memoryTool = (store: MemoryStore, options: MemoryToolOptions = {}): MemoryRunnableTool => {
  checkQuotaOptions(options);
  checkAttribution(options);
  resolveGuard(options.sensitive); // a bad `sensitive` option is a TypeError now, not an error result later
  let previous: Promise<unknown> = Promise.resolve();
  return {
    ...options.definition,
    ...MEMORY_TOOL_DEFINITION,
    // The engine validates the raw input itself, so that malformed input gets the spec's messages.
    parse: (input: unknown): unknown => input,
    run: async (input: unknown): Promise<string> => {
      const result = previous.then(() => runCommand(store, input, options));
      previous = result;
      const { content, isError } = await result;
      // The runner sends a ToolError's content as it is, with `is_error: true`.
      if (isError) throw new ToolError(content);
      return content;
    },
  };
};

/** A `tool_result` block with an explicit `is_error`. */
export interface MemoryToolResultBlock extends BetaToolResultBlockParam {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error: boolean;
}

/**
 * Runs one memory `tool_use` block and returns its `tool_result` block, for hand-written agent loops.
 * Never throws: every failure becomes an error result.
 *
 * @example
 * ```ts
 * const results = [];
 * for (const block of message.content) {
 *   if (block.type === "tool_use" && block.name === "memory") {
 *     results.push(await handleMemoryToolUse(block, store));
 *   }
 * }
 * messages.push({ role: "user", content: results });
 * ```
 */
export const handleMemoryToolUse = async (
  block: Pick<BetaToolUseBlock, "id" | "input">,
  store: MemoryStore,
  options: MemoryToolOptions = {},
): Promise<MemoryToolResultBlock> => {
  const result = await runCommand(store, block.input, options);
  return { type: "tool_result", tool_use_id: block.id, content: result.content, is_error: result.isError };
};
