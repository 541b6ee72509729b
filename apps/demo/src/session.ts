/** One conversation: the SDK's tool runner with the memory tool, streamed, every step reported. */
import type Anthropic from "@anthropic-ai/sdk";
import type { MemoryStore } from "@mem/core";
import {
  contextManagement,
  MEMORY_SYSTEM_PROMPT,
  MEMORY_TIDINESS_NOTE,
  memoryTool,
  searchTool,
} from "@mem/core/anthropic";

export interface ToolCall {
  input: unknown;
  content: string;
  isError: boolean;
}

export interface SessionEvents {
  /** A piece of Claude's text as it streams in; `start` is true for the first piece of a text block. */
  text(delta: string, start: boolean): void;
  toolCall(input: unknown): void;
  toolResult(call: ToolCall): void;
}

export interface SessionOptions {
  client: Anthropic;
  model: string;
  store: MemoryStore;
  prompt: string;
  /** Most requests the session may make. */
  maxIterations?: number;
}

/** What a session did, for whoever wants to check it. */
export interface SessionTranscript {
  toolCalls: ToolCall[];
  finalText: string;
}

export const SYSTEM_PROMPT = `${MEMORY_SYSTEM_PROMPT}\n\n${MEMORY_TIDINESS_NOTE}`;

/** A tool result's text: the string, or the text blocks of an image view (the image itself is not text). */
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content
          .flatMap((b: { type?: string; text?: string }) => (b.type === "text" ? [b.text ?? ""] : []))
          .join("\n")
      : "";

// The SDK's tool runner lives in its beta namespace (the memory tool itself is GA on the Messages API).
export const runSession = async (
  options: SessionOptions,
  events: SessionEvents,
): Promise<SessionTranscript> => {
  const runner = options.client.beta.messages.toolRunner({
    model: options.model,
    max_tokens: 4096,
    system: SYSTEM_PROMPT,
    tools: [memoryTool(options.store), searchTool(options.store)],
    messages: [{ role: "user", content: options.prompt }],
    max_iterations: options.maxIterations ?? 16,
    stream: true,
    ...contextManagement(),
  });
  const toolCalls: ToolCall[] = [];
  let finalText = "";
  for await (const stream of runner) {
    stream.on("streamEvent", (event) => {
      if (event.type === "content_block_start" && event.content_block.type === "text") events.text("", true);
    });
    stream.on("text", (delta) => events.text(delta, false));
    const message = await stream.finalMessage();
    finalText = message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    const uses = message.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) continue;
    // The runner caches this response and sends it on, so each call runs once.
    const response = await runner.generateToolResponse();
    const results = Array.isArray(response?.content) ? response.content : [];
    for (const use of uses) {
      events.toolCall(use.input);
      const result = results.find((r) => r.type === "tool_result" && r.tool_use_id === use.id);
      const content = result?.type === "tool_result" ? textOf(result.content) : "";
      const call = {
        input: use.input,
        content,
        isError: result?.type === "tool_result" && result.is_error === true,
      };
      toolCalls.push(call);
      events.toolResult(call);
    }
  }
  return { toolCalls, finalText };
};
