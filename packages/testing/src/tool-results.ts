/** What the server received as tool results, and what a test expects to find there. */
import type { Block, ReceivedRequest, ToolResultBlock } from "./types.js";

const isToolResult = (block: Block): block is ToolResultBlock => block.type === "tool_result";

/** The `tool_result` blocks of a request's last message (none when it holds no blocks). */
export const toolResults = (request: ReceivedRequest | undefined): ToolResultBlock[] => {
  const messages = request?.body["messages"];
  const content = Array.isArray(messages)
    ? (messages.at(-1) as { content?: unknown } | undefined)?.content
    : [];
  return Array.isArray(content) ? (content as Block[]).filter(isToolResult) : [];
};

/**
 * The `tool_result` blocks each request after the first carried, one list per request: what a client
 * answered each turn of the script with.
 */
export const receivedToolResults = (requests: readonly ReceivedRequest[]): ToolResultBlock[][] =>
  requests.slice(1).map(toolResults);

/** The id the server gives the `n`-th tool call it sends (from 1): `toolu_demo_001`, ... */
export const toolUseId = (n: number): string => `toolu_demo_${String(n).padStart(3, "0")}`;

/**
 * The `tool_result` block a client sends for the `n`-th tool call (from 1) answered with `content`:
 * `is_error: true` only on errors, as the API's clients send it.
 */
export const toolResult = (
  n: number,
  content: NonNullable<ToolResultBlock["content"]>,
  options: { isError?: boolean } = {},
): ToolResultBlock => ({
  type: "tool_result",
  tool_use_id: toolUseId(n),
  content,
  ...(options.isError && { is_error: true }),
});
