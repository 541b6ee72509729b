/**
 * The standard agent loops of LangChain's own documentation, with nothing added by the application:
 * `createAgent` (the `langchain` package) with `memoryMiddleware`, and a hand-built LangGraph `StateGraph`
 * whose tools node is the prebuilt `ToolNode` and whose model is wrapped in `withMarkedToolErrors`. Both
 * run the integration checks against the scripted Messages API over HTTP: a failed `str_replace` reaches
 * the server as `is_error: true`, calls run in order, concurrent conversations keep both edits.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import {
  executeCommand,
  InMemoryStore,
  MEMORY_SYSTEM_PROMPT,
  type MemoryStore,
  toolResultContent,
} from "@mem/core";
import { FsStore } from "@mem/fs";
import { RedisStore } from "@mem/redis";
import { type Converse, describeMemoryToolChecks, withScriptedApi } from "@mem/testkit/integration-checks";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import {
  type MemoryMiddlewareOptions,
  memoryMiddleware,
  memoryTool,
  withMarkedToolErrors,
} from "../src/index.js";
import { chatModel } from "./helpers.js";

const lastText = (messages: BaseMessage[]): string => messages.at(-1)?.text ?? "";

const agentLoop =
  (streaming: boolean): Converse<MemoryStore> =>
  async (api, store, _script, options = {}) => {
    const agent = createAgent({
      model: chatModel(api, streaming),
      tools: [],
      middleware: [memoryMiddleware(store, { ...options, systemPrompt: false })],
    });
    const { messages } = await agent.invoke({ messages: [new HumanMessage("Tidy up my memory.")] });
    return lastText(messages);
  };

const graphLoop: Converse<MemoryStore> = async (api, store, _script, options = {}) => {
  const memory = memoryTool(store, options);
  const model = withMarkedToolErrors(chatModel(api, false).bindTools([memory]));
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode([memory]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile();
  const { messages } = await graph.invoke({ messages: [new HumanMessage("Tidy up my memory.")] });
  return lastText(messages);
};

const engine = {
  Directory: FsStore,
  Redis: RedisStore,
  fresh: () => new InMemoryStore(),
  execute: executeCommand,
  content: toolResultContent,
};

describeMemoryToolChecks<MemoryStore>("createAgent with memoryMiddleware", {
  ...engine,
  modes: { invoke: agentLoop(false), streaming: agentLoop(true) },
});

describeMemoryToolChecks<MemoryStore>("a StateGraph with ToolNode and withMarkedToolErrors", {
  ...engine,
  modes: { invoke: graphLoop },
});

describe("memoryMiddleware's system prompt", () => {
  /** The `system` of the first request of an agent with `systemPrompt` (when given) and `middleware`. */
  const systemSent = (systemPrompt: string | undefined, middleware: ReturnType<typeof memoryMiddleware>[]) =>
    withScriptedApi([], async (api) => {
      const agent = createAgent({
        model: chatModel(api, false),
        tools: [],
        ...(systemPrompt !== undefined && { systemPrompt }),
        middleware,
      });
      await agent.invoke({ messages: [new HumanMessage("Hi.")] });
      return api.received[0]?.body["system"];
    });
  const withMemory = (options: MemoryMiddlewareOptions = {}) => [
    memoryMiddleware(new InMemoryStore(), options),
  ];

  it("is the memory prompt when the agent has none", async () => {
    expect(await systemSent(undefined, withMemory())).toBe(MEMORY_SYSTEM_PROMPT);
  });

  it("follows the agent's own prompt, as a text block of its own", async () => {
    expect(await systemSent("You are terse.", withMemory())).toEqual([
      { type: "text", text: "You are terse." },
      { type: "text", text: MEMORY_SYSTEM_PROMPT },
    ]);
  });

  it("can be another text, or none", async () => {
    expect(await systemSent("You are terse.", withMemory({ systemPrompt: "Keep notes." }))).toEqual([
      { type: "text", text: "You are terse." },
      { type: "text", text: "Keep notes." },
    ]);
    expect(await systemSent("You are terse.", withMemory({ systemPrompt: false }))).toEqual(
      await systemSent("You are terse.", []),
    );
    expect(await systemSent(undefined, withMemory({ systemPrompt: false }))).toBeUndefined();
  });

  it("a systemPrompt that is neither a string nor false is a TypeError naming it", () => {
    expect(() => memoryMiddleware(new InMemoryStore(), { systemPrompt: 1 as never })).toThrow(
      new TypeError("memoryMiddleware: systemPrompt must be a string or false"),
    );
  });
});
