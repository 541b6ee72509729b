/** The memory tool for ChatAnthropic, and the executor that answers its calls. */
import { AIMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { RunnableLambda } from "@langchain/core/runnables";
import { type DynamicStructuredTool, tool } from "@langchain/core/tools";
import {
  type ExecuteOptions,
  executeCommand,
  type MemoryStore,
  oneAtATime,
  resolveGuard,
  unknownToolResult,
} from "@mem/core";
import { toToolMessage } from "./tool-message.js";

/** Everything `executeCommand` takes: limits, quotas, `createOverwrites`, the guard, hooks. */
export type MemoryToolOptions = ExecuteOptions;

/**
 * The tool `memoryTool` returns: named `memory`, declared to Anthropic as `memory_20250818` (the
 * definition `@langchain/anthropic`'s `tools.memory_20250818` gives), taking any input.
 */
export type MemoryTool = DynamicStructuredTool;

/** What ChatAnthropic's `bindTools` declares for the tool: Anthropic's own memory tool. */
const PROVIDER_TOOL = { type: "memory_20250818", name: "memory" } as const;

// The engine validates the raw input itself: an empty JSON Schema lets every input through LangChain's
// own check (which would throw ToolInputParsingException), so malformed input gets the spec's error.
const ANY_INPUT: Record<string, unknown> = {};

/** What a `ToolNode` takes: the messages, or a graph state holding them. */
export type MemoryToolNodeInput = BaseMessage[] | { messages: BaseMessage[] };
/** What it gives back, in the same shape: one `ToolMessage` per tool call, in the order of the calls. */
export type MemoryToolNodeOutput = ToolMessage[] | { messages: ToolMessage[] };

/**
 * The memory tool to bind to ChatAnthropic (`model.bindTools([memoryTool(store)])`), or to give
 * `createAgent` or LangGraph's `ToolNode`: the request declares Anthropic's `memory_20250818` tool, not a
 * custom function. Invoked with a tool call, it answers with the `ToolMessage` of {@link memoryToolNode};
 * with bare arguments, with the result's text. It takes any input: malformed arguments get the spec's
 * error from the engine, never a schema error of LangChain.
 */
export const memoryTool = (store: MemoryStore, options: MemoryToolOptions = {}): MemoryTool => {
  resolveGuard(options.sensitive);
  const queue = oneAtATime();
  const memory = tool(
    async (input: unknown, config?: { toolCall?: { id?: string } }) => {
      const result = await queue(() => executeCommand(store, input, options));
      const id = config?.toolCall?.id;
      return id ? toToolMessage(result, id) : result.content;
    },
    { name: "memory", description: "Anthropic's memory tool (memory_20250818)", schema: ANY_INPUT },
  ) as unknown as MemoryTool;
  memory.extras = { ...memory.extras, providerToolDefinition: { ...PROVIDER_TOOL } };
  return memory;
};

const lastAiMessage = (messages: readonly BaseMessage[]): AIMessage | undefined => {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (AIMessage.isInstance(message)) return message;
  }
  return undefined;
};

/**
 * A `ToolNode`-compatible executor: takes the messages (or `{ messages }`), runs every tool call of the
 * last AI message against the store, one at a time in the order the model wrote them (a `create` and an
 * edit of the same file in one turn must not race), and returns their `ToolMessage`s in the same shape.
 * Give each conversation its own executor; the store's conditional writes keep concurrent conversations
 * from losing each other's edits.
 * The raw arguments go to `executeCommand`, so every answer, malformed input included, is the spec's
 * exact text; errors have `status: "error"` (see `markToolErrors` for ChatAnthropic), image views an
 * image block. A call naming another tool gets the spec's unknown-tool error.
 *
 * @example
 * ```ts
 * const messages: BaseMessage[] = [new HumanMessage("What did we decide last time?")];
 * for (;;) {
 *   const reply = await model.invoke(markToolErrors(messages));
 *   messages.push(reply);
 *   if (!reply.tool_calls?.length) break;
 *   messages.push(...(await node.invoke(messages)));
 * }
 * ```
 */
export const memoryToolNode = (
  store: MemoryStore,
  options: MemoryToolOptions = {},
): RunnableLambda<MemoryToolNodeInput, MemoryToolNodeOutput> => {
  resolveGuard(options.sensitive);
  const queue = oneAtATime();
  const run = async (call: ToolCall): Promise<ToolMessage> => {
    const result =
      call.name === "memory"
        ? await queue(() => executeCommand(store, call.args, options))
        : unknownToolResult(call.name);
    return toToolMessage(result, call.id ?? "");
  };
  return RunnableLambda.from(async (input: MemoryToolNodeInput): Promise<MemoryToolNodeOutput> => {
    const messages = Array.isArray(input) ? input : input.messages;
    const calls = lastAiMessage(messages)?.tool_calls ?? [];
    const results = await Promise.all(calls.map(run));
    return Array.isArray(input) ? results : { messages: results };
  });
};
