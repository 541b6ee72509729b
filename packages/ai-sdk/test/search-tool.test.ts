/**
 * `memorySearchTool` through the real AI SDK and Anthropic provider against the scripted Messages API:
 * what the server receives is what Claude would.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { executeCommand, executeSearch, InMemoryStore } from "@mem/core";
import { lastToolResults, startScriptedApi } from "@mem/testkit";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { memorySearchTool, memoryTool } from "../src/index.js";

const QUERIES = [{ query: "TEA" }, { query: "(", regex: true }];

describe("memorySearchTool", () => {
  it("declares memory_search to the model and sends SPEC §9's results, errors marked", async () => {
    const store = new InMemoryStore();
    await executeCommand(store, { command: "create", path: "/memories/likes.md", file_text: "green tea\n" });
    let turn = 0;
    const api = await startScriptedApi({
      model: () => {
        const input = QUERIES[turn++];
        return input
          ? [{ type: "tool_use", name: "memory_search", input }]
          : [{ type: "text", text: "You like green tea." }];
      },
    });
    try {
      const provider = createAnthropic({ apiKey: "offline", baseURL: `${api.baseURL}/v1` });
      const { text } = await generateText({
        model: provider("claude-test"),
        tools: { memory: memoryTool(store), memory_search: memorySearchTool(store) },
        stopWhen: stepCountIs(5),
        maxRetries: 0,
        prompt: "Which tea do I like?",
      });
      expect(text).toBe("You like green tea.");
      const tools = api.received[0]?.body["tools"] as {
        name: string;
        description?: string;
        input_schema?: unknown;
      }[];
      expect(tools.map((t) => t.name)).toEqual(["memory", "memory_search"]);
      expect(tools[1]?.description).toBe(
        "Search the text of your memory files. Returns matching lines as path:line: text, in path order.",
      );
      for (const [i, input] of QUERIES.entries()) {
        const expected = await executeSearch(store, input);
        const [result] = lastToolResults(api.received[i + 1]?.body ?? {}) as {
          content: unknown;
          is_error?: boolean;
        }[];
        const text =
          typeof result?.content === "string"
            ? result.content
            : (result?.content as { text: string }[])[0]?.text;
        expect(text).toBe(expected.content);
        expect(result?.is_error === true).toBe(expected.isError);
      }
    } finally {
      await api.close();
    }
  });
});
