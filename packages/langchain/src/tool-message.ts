/** Engine results as LangChain messages, and the error flag ChatAnthropic needs to see. */

import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { type BaseMessage, type BaseMessageLike, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { type Runnable, RunnableLambda } from "@langchain/core/runnables";
import { type ToolResult, toContentBlocks } from "@mem/core";

/**
 * A result as the `ToolMessage` of one tool call: its text (for an image view, the text block `Here's the
 * image {path}:` and the image block), `status: "error"` on errors.
 */
export const toToolMessage = (result: ToolResult, toolCallId: string): ToolMessage =>
  new ToolMessage({
    // Anthropic's own block shapes, which ChatAnthropic sends unchanged.
    content: result.image
      ? toContentBlocks(result).map((block) => ({ ...block }) as Record<string, unknown> & { type: string })
      : result.content,
    tool_call_id: toolCallId,
    name: "memory",
    status: result.isError ? "error" : "success",
  });

/**
 * The messages with every `ToolMessage` whose status is `"error"` given as the `tool_result` block that
 * ChatAnthropic sends as it is, with `is_error: true`. ChatAnthropic (through @langchain/anthropic 1.5)
 * leaves a `ToolMessage`'s status out of its request, so without this Claude sees an error result as a
 * success. Other messages are returned as they are; the input is not changed.
 *
 * @example
 * ```ts
 * const reply = await model.invoke(markToolErrors(messages));
 * ```
 */
export function markToolErrors(messages: readonly BaseMessage[]): BaseMessage[];
export function markToolErrors(messages: readonly BaseMessageLike[]): BaseMessageLike[];
export function markToolErrors(messages: readonly BaseMessageLike[]): BaseMessageLike[] {
  return messages.map((message) =>
    ToolMessage.isInstance(message) && message.status === "error"
      ? new HumanMessage({
          content: [
            {
              type: "tool_result",
              tool_use_id: message.tool_call_id,
              content: message.content,
              is_error: true,
            },
          ],
        })
      : message,
  );
}

/**
 * `model` (a chat model with the memory tool bound) behind {@link markToolErrors}: each call gets the
 * messages with tool errors marked. For hand-built LangGraph graphs whose tools node is the prebuilt
 * `ToolNode`: the model node calls the wrapper instead of the model. Input other than a list of messages
 * is passed on as it is.
 *
 * @example
 * ```ts
 * const callModel = async (state: { messages: BaseMessage[] }) => ({
 *   messages: [await withMarkedToolErrors(model).invoke(state.messages)],
 * });
 * ```
 */
export const withMarkedToolErrors = <Output>(
  model: Runnable<BaseLanguageModelInput, Output>,
): Runnable<BaseLanguageModelInput, Output> =>
  RunnableLambda.from(
    (input: BaseLanguageModelInput): BaseLanguageModelInput =>
      Array.isArray(input) ? markToolErrors(input) : input,
  ).pipe(model);
