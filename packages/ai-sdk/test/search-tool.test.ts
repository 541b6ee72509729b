/**
 * `memorySearchTool` through the real AI SDK and Anthropic provider against the scripted Messages API:
 * what the server receives is what Claude would.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { executeCommand, executeSearch, InMemoryStore } from "@mem/core";
import { SEARCH_FINAL_TEXT, scriptedSearchModel, sentToolResults, startScriptedApi } from "@mem/testkit";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { memorySearchTool, memoryTool } from "../src/index.js";

const QUERIES = [{ query: "TEA" }, { query: "(", regex: true }];

describe("memorySearchTool", () => {
  it("declares memory_search to the model and sends SPEC §9's results, errors marked", async () => {
    const store = new InMemoryStore();
    await executeCommand(store, { command: "create", path: "/memories/likes.md", file_text: "green tea\n" });
    const api = await startScriptedApi({ model: scriptedSearchModel(QUERIES) });
    try {
      const provider = createAnthropic({ apiKey: "offline", baseURL: `${api.baseURL}/v1` });
      const { text } = await generateText({
        model: provider("claude-test"),
        tools: { memory: memoryTool(store), memory_search: memorySearchTool(store) },
        stopWhen: stepCountIs(5),
        maxRetries: 0,
        prompt: "Which tea do I like?",
      });
      expect(text).toBe(SEARCH_FINAL_TEXT);
      const tools = api.received[0]?.body["tools"] as { name: string; description?: string }[];
      expect(tools.map((t) => t.name)).toEqual(["memory", "memory_search"]);
      expect(tools[1]?.description).toBe(
        "Search the text of your memory files. Returns matching lines as path:line: text, in path order.",
      );
      const expected = await Promise.all(QUERIES.map((input) => executeSearch(store, input)));
      expect(sentToolResults(api.received, QUERIES.length)).toEqual(
        expected.map(({ content, isError }) => ({ content, isError })),
      );
      expect(expected.map((result) => result.isError)).toEqual([false, true]);
    } finally {
      await api.close();
    }
  });
});
