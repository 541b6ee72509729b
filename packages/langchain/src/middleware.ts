/** The memory tool as middleware of the `langchain` package's `createAgent`. */
import { SystemMessage } from "@langchain/core/messages";
import { MEMORY_SYSTEM_PROMPT, type MemoryStore, resolveGuard } from "@mem/core";
import { createMiddleware } from "langchain";
import { type MemoryToolOptions, memoryTool } from "./memory-tool.js";
import { markToolErrors } from "./tool-message.js";

/** The tool's options, and the system prompt the middleware adds. */
export interface MemoryMiddlewareOptions extends MemoryToolOptions {
  /**
   * What the middleware adds to the agent's system prompt: `MEMORY_SYSTEM_PROMPT` by default; `false`
   * adds nothing. It is the whole system prompt of an agent without one, and follows the agent's own
   * (after a blank line, or as a text block of its own when the agent's prompt is made of blocks).
   */
  systemPrompt?: string | false;
}

/** The middleware `memoryMiddleware` returns, for `createAgent({ middleware: [...] })`. */
export type MemoryMiddleware = ReturnType<typeof createMiddleware>;

/** The agent's system message with `prompt` after it (the prompt alone when the agent has none). */
const withPrompt = (system: SystemMessage, prompt: string): SystemMessage => {
  if (typeof system.content === "string") {
    return new SystemMessage({ content: system.content ? `${system.content}\n\n${prompt}` : prompt });
  }
  return system.concat(new SystemMessage({ content: [{ type: "text", text: prompt }] }));
};

/**
 * Middleware for `createAgent` that gives the agent the memory tool on `store` (`memoryTool`), adds the
 * memory system prompt, and marks tool errors before each model call (`markToolErrors`), so that a failed
 * command reaches Claude as a `tool_result` with `is_error: true` (ChatAnthropic leaves a `ToolMessage`'s
 * status out of its request).
 */
export const memoryMiddleware = (
  store: MemoryStore,
  options: MemoryMiddlewareOptions = {},
): MemoryMiddleware => {
  const { systemPrompt = MEMORY_SYSTEM_PROMPT, ...toolOptions } = options;
  if (systemPrompt !== false && typeof systemPrompt !== "string") {
    throw new TypeError("memoryMiddleware: systemPrompt must be a string or false");
  }
  resolveGuard(toolOptions.sensitive);
  return createMiddleware({
    name: "MemoryMiddleware",
    tools: [memoryTool(store, toolOptions)],
    wrapModelCall: (request, handler) =>
      handler({
        ...request,
        messages: markToolErrors(request.messages),
        ...(systemPrompt && { systemMessage: withPrompt(request.systemMessage, systemPrompt) }),
      }),
  });
};
