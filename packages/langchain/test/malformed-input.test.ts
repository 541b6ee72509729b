/**
 * Malformed arguments reach the engine, through the prebuilt `ToolNode` of LangGraph (the tools node of
 * `createAgent` and of hand-built graphs) and through the tool itself: the model sees the spec's error,
 * never LangChain's `ToolInputParsingException`.
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { executeCommand, InMemoryStore } from "@mem/core";
import { describe, expect, it } from "vitest";
import { memoryTool, toToolMessage } from "../src/index.js";
import { MALFORMED_INPUTS } from "./helpers.js";

const callOf = (args: unknown, i: number) => ({
  id: `call_${i}`,
  name: "memory",
  args: args as Record<string, unknown>,
  type: "tool_call" as const,
});

/** What the engine answers each input with, one after the other on a fresh store. */
const engineAnswers = async () => {
  const store = new InMemoryStore();
  const out: ToolMessage[] = [];
  for (const [i, input] of MALFORMED_INPUTS.entries()) {
    out.push(toToolMessage(await executeCommand(store, input), `call_${i}`));
  }
  return out;
};

const shape = (m: ToolMessage) => [m.tool_call_id, m.status, m.content];

describe("memoryTool with malformed arguments", () => {
  it("the list holds 66 inputs, each an error of the engine", async () => {
    expect(MALFORMED_INPUTS).toHaveLength(66);
    for (const answer of await engineAnswers()) expect(answer.status).toBe("error");
  });

  it("ToolNode answers every one with the engine's error, in one turn", async () => {
    const node = new ToolNode([memoryTool(new InMemoryStore())]);
    const ai = new AIMessage({ content: "", tool_calls: MALFORMED_INPUTS.map(callOf) });
    const { messages } = (await node.invoke({ messages: [ai] })) as { messages: ToolMessage[] };
    expect(messages.map(shape)).toEqual((await engineAnswers()).map(shape));
  });

  it("the tool invoked with each call answers with the engine's error", async () => {
    const tool = memoryTool(new InMemoryStore());
    const got: ToolMessage[] = [];
    for (const [i, input] of MALFORMED_INPUTS.entries()) {
      const message: unknown = await tool.invoke(callOf(input, i));
      expect(message).toBeInstanceOf(ToolMessage);
      got.push(message as ToolMessage);
    }
    expect(got.map(shape)).toEqual((await engineAnswers()).map(shape));
  });
});
