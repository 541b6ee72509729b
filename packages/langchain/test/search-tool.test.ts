/**
 * `memorySearchTool` with the real ChatAnthropic against the scripted Messages API over HTTP: the tool is
 * declared to the model, and its results reach it as SPEC §9 writes them.
 */
import { ChatAnthropic } from "@langchain/anthropic";
import { type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { executeCommand, executeSearch, InMemoryStore } from "@mem/core";
import { SEARCH_FINAL_TEXT, scriptedSearchModel, sentToolResults, startScriptedApi } from "@mem/testkit";
import { describe, expect, it } from "vitest";
import { markToolErrors, memorySearchTool, memoryTool } from "../src/index.js";

const QUERIES = [{ query: "TEA" }, { query: "" }];

describe("memorySearchTool", () => {
  it("is bound beside the memory tool and answers tool calls with SPEC §9's text", async () => {
    const store = new InMemoryStore();
    await executeCommand(store, { command: "create", path: "/memories/likes.md", file_text: "green tea\n" });
    const api = await startScriptedApi({ model: scriptedSearchModel(QUERIES) });
    try {
      const search = memorySearchTool(store);
      const model = new ChatAnthropic({
        model: "claude-test",
        apiKey: "offline",
        anthropicApiUrl: api.baseURL,
        maxRetries: 0,
        maxTokens: 1024,
      }).bindTools([memoryTool(store), search]);
      const messages: BaseMessage[] = [new HumanMessage("Which tea do I like?")];
      let reply = await model.invoke(messages);
      while (reply.tool_calls?.length) {
        messages.push(reply);
        for (const call of reply.tool_calls) {
          const answer = await search.invoke(call);
          expect(answer).toBeInstanceOf(ToolMessage);
          messages.push(answer as ToolMessage);
        }
        reply = await model.invoke(markToolErrors(messages));
      }
      expect(reply.text).toBe(SEARCH_FINAL_TEXT);
      const tools = api.received[0]?.body["tools"] as {
        name: string;
        input_schema?: { required?: string[] };
      }[];
      expect(tools.map((t) => t.name)).toEqual(["memory", "memory_search"]);
      expect(tools[1]?.input_schema?.required).toEqual(["query"]);
      const expected = await Promise.all(QUERIES.map((input) => executeSearch(store, input)));
      expect(sentToolResults(api.received, QUERIES.length)).toEqual(
        expected.map(({ content, isError }) => ({ content, isError })),
      );
      expect(expected.map((result) => result.isError)).toEqual([false, true]);
      expect(await search.invoke({ query: "green" })).toBe(
        'Found 1 matching line(s) for "green" in /memories:\n/memories/likes.md:1: green tea',
      );
    } finally {
      await api.close();
    }
  });
});
