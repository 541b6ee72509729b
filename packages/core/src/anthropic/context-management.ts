import type { AnthropicBeta } from "@anthropic-ai/sdk/resources/beta";
import type {
  BetaClearToolUses20250919Edit,
  BetaCompact20260112Edit,
} from "@anthropic-ai/sdk/resources/beta/messages/messages";
import { MEMORY_TOOL_DEFINITION } from "./memory-tool.js";

/** The beta that enables `context_management` on the Messages API. */
export const CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27" satisfies AnthropicBeta;

/** The beta that enables the server-side compaction edit, `compact_20260112`. */
export const COMPACTION_BETA = "compact-2026-01-12" satisfies AnthropicBeta;

/** Server-side compaction: the API summarises older context into a `compaction` block. */
export interface CompactionOptions {
  /** Compact once the prompt reaches this many input tokens. Default: the API's (150,000). */
  triggerInputTokens?: number;
  /** Further instructions for the summary. */
  instructions?: string;
  /** Stop after compacting and return the `compaction` block to the application. Default false. */
  pauseAfterCompaction?: boolean;
}

export interface ContextManagementOptions {
  /** Clear old tool results once the prompt reaches this many input tokens. Default 100,000. */
  triggerInputTokens?: number;
  /** How many of the most recent tool uses stay untouched. Default 3. */
  keepToolUses?: number;
  /**
   * Clear only when at least this many tokens would go, so that breaking the prompt cache pays off.
   * Default: no minimum.
   */
  clearAtLeastTokens?: number;
  /** Also clear the inputs of the cleared tool calls, not only their results. Default false. */
  clearToolInputs?: boolean;
  /** Further tools whose uses are never cleared; the memory tool's are always kept. */
  excludeTools?: readonly string[];
  /**
   * Also ask for server-side compaction (`compact_20260112`), after the clearing edit: `true` for the API's
   * defaults, or its options. Default: no compaction.
   */
  compact?: boolean | CompactionOptions;
}

/** Request fields to spread into `messages.create()` or `toolRunner()` params. */
export interface ContextManagementParams {
  betas: AnthropicBeta[];
  context_management: { edits: (BetaClearToolUses20250919Edit | BetaCompact20260112Edit)[] };
}

/**
 * Request fields that let the API clear old tool results as the conversation grows, while keeping every
 * memory tool call and result: what the model wrote to memory stays where it can see it, and whatever it
 * needs from cleared results it can look up in memory again.
 *
 * The returned `betas` replaces a `betas` you set before it; merge them if you use other betas.
 *
 * @example
 * ```ts
 * const runner = client.beta.messages.toolRunner({
 *   model: "claude-sonnet-5-5",
 *   max_tokens: 2048,
 *   tools: [memoryTool(store)],
 *   messages,
 *   ...contextManagement({ triggerInputTokens: 50_000, compact: { triggerInputTokens: 150_000 } }),
 * });
 * ```
 */
export const contextManagement = (options: ContextManagementOptions = {}): ContextManagementParams => {
  const edit: BetaClearToolUses20250919Edit = {
    type: "clear_tool_uses_20250919",
    trigger: { type: "input_tokens", value: options.triggerInputTokens ?? 100_000 },
    keep: { type: "tool_uses", value: options.keepToolUses ?? 3 },
    exclude_tools: [...new Set([MEMORY_TOOL_DEFINITION.name, ...(options.excludeTools ?? [])])],
  };
  if (options.clearAtLeastTokens !== undefined) {
    edit.clear_at_least = { type: "input_tokens", value: options.clearAtLeastTokens };
  }
  if (options.clearToolInputs !== undefined) edit.clear_tool_inputs = options.clearToolInputs;
  const compaction = compactionEdit(options.compact);
  if (!compaction) return { betas: [CONTEXT_MANAGEMENT_BETA], context_management: { edits: [edit] } };
  return {
    betas: [CONTEXT_MANAGEMENT_BETA, COMPACTION_BETA],
    context_management: { edits: [edit, compaction] },
  };
};

const compactionEdit = (option: boolean | CompactionOptions | undefined): BetaCompact20260112Edit | null => {
  if (option === undefined || option === false) return null;
  const edit: BetaCompact20260112Edit = { type: "compact_20260112" };
  if (option === true) return edit;
  if (option.triggerInputTokens !== undefined) {
    edit.trigger = { type: "input_tokens", value: option.triggerInputTokens };
  }
  if (option.instructions !== undefined) edit.instructions = option.instructions;
  if (option.pauseAfterCompaction !== undefined) edit.pause_after_compaction = option.pauseAfterCompaction;
  return edit;
};
