import type { BetaRunnableTool } from "@anthropic-ai/sdk/lib/tools/BetaRunnableTool";
import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import type { BetaMemoryTool20250818, BetaToolUseBlock } from "@anthropic-ai/sdk/resources/beta";
import type { MemoryTool20250818, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { checkAttribution } from "../actor.js";
import {
  type ExecuteOptions,
  executeCommand,
  type MemoryStore,
  oneAtATime,
  resolveGuard,
  type ToolResult,
  type ToolResultContentBlock,
  toolResultContent,
} from "../index.js";
import { msg } from "../messages.js";
import { checkQuotaOptions } from "../quota.js";
import { executeSearch, MEMORY_SEARCH_TOOL_NAME, type SearchToolOptions } from "../search/tool.js";

/** The tool's definition as the Messages API expects it in `tools`. */
export const MEMORY_TOOL_DEFINITION = { type: "memory_20250818", name: "memory" } as const;

/** The optional fields of the GA tool definition: `cache_control`, `defer_loading`, `allowed_callers`, ... */
export type MemoryToolDefinitionFields = Omit<MemoryTool20250818, "type" | "name">;

/** The definition fields `memoryTool` copies into the tool it returns. */
const DEFINITION_FIELDS = [
  "allowed_callers",
  "cache_control",
  "defer_loading",
  "input_examples",
  "strict",
] as const satisfies readonly (keyof MemoryToolDefinitionFields)[];

export interface MemoryToolOptions extends ExecuteOptions, MemoryToolDefinitionFields {
  /** Extra fields of the tool definition, as an object; the same fields given at the top level win. */
  definition?: Omit<BetaMemoryTool20250818, "type" | "name">;
  /**
   * `handleMemoryToolUse` also runs blocks named `memory_search` (SPEC §9), with these options (`true`:
   * the defaults, with this tool's `viewCharLimit` and `onUnexpectedError`). Default off.
   */
  search?: boolean | SearchToolOptions;
}

/** A runnable `memory_20250818` tool for the SDK's tool runner. */
export type MemoryRunnableTool = BetaMemoryTool20250818 & BetaRunnableTool<unknown>;

/** Runs one command; never throws. */
const runCommand = async (
  store: MemoryStore,
  input: unknown,
  options: MemoryToolOptions,
): Promise<ToolResult> => {
  const execute: ExecuteOptions & Record<string, unknown> = { ...options };
  delete execute["definition"];
  delete execute["search"];
  for (const field of DEFINITION_FIELDS) delete execute[field];
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
  const inOrder = oneAtATime();
  const fields: Record<string, unknown> = {};
  for (const field of DEFINITION_FIELDS) if (options[field] !== undefined) fields[field] = options[field];
  return {
    ...options.definition,
    ...(fields as Omit<BetaMemoryTool20250818, "type" | "name">),
    ...MEMORY_TOOL_DEFINITION,
    // The engine validates the raw input itself, so that malformed input gets the spec's messages.
    parse: (input: unknown): unknown => input,
    run: async (input: unknown): Promise<string | ToolResultContentBlock[]> => {
      const outcome = await inOrder(() => runCommand(store, input, options));
      // The runner sends a ToolError's content as it is, with `is_error: true`.
      if (outcome.isError) throw new ToolError(outcome.content);
      // An image view is two blocks, the text and the image; everything else is its text.
      return toolResultContent(outcome);
    },
  };
};

/**
 * A `tool_result` block with an explicit `is_error`, usable in GA and beta requests alike. `content` is
 * the result's text, or for an image view its two blocks (text, then image).
 */
export interface MemoryToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | ToolResultContentBlock[];
  is_error: boolean;
}

/** A `tool_use` block of the GA or the beta Messages API; `name` may be left out. */
export type MemoryToolUseBlock = Pick<ToolUseBlock | BetaToolUseBlock, "id" | "input"> & { name?: string };

/**
 * Runs one memory `tool_use` block (GA or beta) and returns its `tool_result` block, for hand-written agent
 * loops. Every failure of the call, including a block that is not an object (`null`), becomes an error
 * result. With the `search` option, a block named `memory_search` runs the search tool (SPEC §9). A block
 * naming another tool is the application's mistake: the promise rejects with a `TypeError` naming that
 * tool, before anything runs.
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
  block: MemoryToolUseBlock | null | undefined,
  store: MemoryStore,
  options: MemoryToolOptions = {},
): Promise<MemoryToolResultBlock> => {
  const fields = readBlock(block);
  const search = searchOptions(options);
  if (search && fields.name === MEMORY_SEARCH_TOOL_NAME) {
    const found = fields.ok ? await executeSearch(store, fields.input, search) : fields.failure;
    return { type: "tool_result", tool_use_id: fields.id, content: found.content, is_error: found.isError };
  }
  if (typeof fields.name === "string" && fields.name !== MEMORY_TOOL_DEFINITION.name) {
    throw new TypeError(
      `handleMemoryToolUse: the tool_use block is for the tool "${fields.name}", not "${MEMORY_TOOL_DEFINITION.name}"`,
    );
  }
  const result = fields.ok ? await runCommand(store, fields.input, options) : fields.failure;
  return {
    type: "tool_result",
    tool_use_id: fields.id,
    content: toolResultContent(result),
    is_error: result.isError,
  };
};

/** The search options `handleMemoryToolUse` runs `memory_search` blocks with, or `null` when search is off. */
const searchOptions = (options: MemoryToolOptions): SearchToolOptions | null => {
  if (!options.search) return null;
  const shared: SearchToolOptions = {};
  if (options.viewCharLimit !== undefined) shared.viewCharLimit = options.viewCharLimit;
  if (options.onUnexpectedError) shared.onUnexpectedError = options.onUnexpectedError;
  return options.search === true ? shared : { ...shared, ...options.search };
};

type BlockFields =
  | { ok: true; id: string; name: unknown; input: unknown }
  | { ok: false; id: string; name: unknown; failure: ToolResult };

/** The block's fields, read once; a block that is not an object, or whose getters throw, is an error result. */
const readBlock = (block: unknown): BlockFields => {
  if (typeof block !== "object" || block === null) {
    return { ok: false, id: "", name: undefined, failure: { content: msg.notAnObject(), isError: true } };
  }
  try {
    const { id, name, input } = block as Record<string, unknown>;
    return { ok: true, id: typeof id === "string" ? id : "", name, input };
  } catch {
    return { ok: false, id: "", name: undefined, failure: { content: msg.unexpected(), isError: true } };
  }
};
