/**
 * A scripted conversation for the `memory_search` tool (SPEC §9): the model searches once per query, then
 * answers; and the results the integration under test sent back, read from the requests.
 */
import { lastToolResults } from "./memory-script.js";
import type { ReceivedRequest, ScriptedModel } from "./scripted-api.js";

/** The scripted model's last answer, once every query was searched. */
export const SEARCH_FINAL_TEXT = "You like green tea.";

/** A model that calls `memory_search` with each input in turn (one per turn), then answers. */
export const scriptedSearchModel = (inputs: readonly Record<string, unknown>[]): ScriptedModel => {
  let turn = 0;
  return () => {
    const input = inputs[turn++];
    return input
      ? [{ type: "tool_use", name: "memory_search", input }]
      : [{ type: "text", text: SEARCH_FINAL_TEXT }];
  };
};

/** The text and error flag of the one tool result each of the `count` requests after the first carried. */
export const sentToolResults = (
  received: readonly ReceivedRequest[],
  count: number,
): { content: string; isError: boolean }[] =>
  Array.from({ length: count }, (_, i) => {
    const [result] = lastToolResults(received[i + 1]?.body ?? {}) as {
      content?: unknown;
      is_error?: boolean;
    }[];
    const content = result?.content;
    const text =
      typeof content === "string" ? content : ((content as { text?: string }[] | undefined)?.[0]?.text ?? "");
    return { content: text, isError: result?.is_error === true };
  });
