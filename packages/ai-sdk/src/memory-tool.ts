/** The memory tool for the AI SDK: Anthropic's provider-defined `memory_20250818`, run against a store. */
import { anthropic } from "@ai-sdk/anthropic";
import {
  type ExecuteOptions,
  executeCommand,
  type MemoryStore,
  oneAtATime,
  resolveGuard,
  type ToolResult,
} from "@mem/core";
import { jsonSchema, type Tool } from "ai";

/** What a tool gives the model, in the AI SDK's terms. */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/** Everything `executeCommand` takes: limits, quotas, `createOverwrites`, the guard, hooks. */
export type MemoryToolOptions = ExecuteOptions;

/** The tool `memoryTool` returns: raw input in, `executeCommand`'s result out. */
export type MemoryTool = Tool<unknown, ToolResult>;

/**
 * What the model receives for a result: its text; an error's text marked as an error (the provider sends
 * `is_error: true`); for an image view the text `Here's the image {path}:` and the image.
 */
export const toModelOutput = (result: ToolResult): ToolResultOutput => {
  if (result.isError) return { type: "error-text", value: result.content };
  if (!result.image) return { type: "text", value: result.content };
  const { mediaType, data } = result.image;
  // `content` is `Here's the image {path}: {media_type}, {bytes} bytes`; the text part ends at the colon.
  const cut = result.content.lastIndexOf(` ${mediaType}, `);
  return {
    type: "content",
    value: [
      { type: "text", text: cut === -1 ? result.content : result.content.slice(0, cut) },
      { type: "file", mediaType, data: { type: "data", data } },
    ],
  };
};

// The engine validates the raw input itself, so malformed input gets the spec's messages rather than a
// schema error of the framework.
const ANY_INPUT = jsonSchema<unknown>({});

/**
 * The memory tool for `generateText` and `streamText`, to put under the key `memory` (a call under any
 * other key fails in the AI SDK; `memoryTools` holds it there): Claude receives Anthropic's `memory_20250818` tool
 * (not a custom function), and every call runs through `executeCommand`, so results are the spec's exact
 * strings. The AI SDK starts the calls of one step at once; the tool runs them one at a time in the order
 * the model wrote them (a `create` and an edit of the same file in one step must not race). Give each
 * conversation its own tool; the store's conditional writes keep concurrent conversations from losing
 * each other's edits. A bad `sensitive` option throws a `TypeError` here; a bad quota option rejects the
 * first call with one.
 *
 * @example
 * ```ts
 * import { anthropic } from "@ai-sdk/anthropic";
 * import { MEMORY_SYSTEM_PROMPT } from "@mem/core";
 * import { memoryTools } from "@mem/ai-sdk";
 * import { generateText, stepCountIs } from "ai";
 *
 * const { text } = await generateText({
 *   model: anthropic("claude-sonnet-5-5"),
 *   system: MEMORY_SYSTEM_PROMPT,
 *   tools: { ...memoryTools(store) },
 *   stopWhen: stepCountIs(10),
 *   prompt: "What did we decide last time?",
 * });
 * ```
 */
export const memoryTool = (store: MemoryStore, options: MemoryToolOptions = {}): MemoryTool => {
  resolveGuard(options.sensitive);
  const inOrder = oneAtATime();
  const provided = anthropic.tools.memory_20250818<ToolResult>({
    // One call at a time, in the order the SDK starts them (the order the model wrote them).
    execute: (input) => inOrder(() => executeCommand(store, input, options)),
    toModelOutput: ({ output }) => toModelOutput(output),
  });
  return { ...provided, inputSchema: ANY_INPUT } as MemoryTool;
};
