/**
 * The real AI SDK and Anthropic provider against the scripted Messages API over HTTP: what the server
 * receives is what Claude would, for an fs store and a Redis store.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { executeCommand, InMemoryStore, type MemoryStore, toolResultContent } from "@mem/core";
import { FsStore } from "@mem/fs";
import { RedisStore } from "@mem/redis";
import { type Converse, describeMemoryToolChecks } from "@mem/testkit/integration-checks";
import { generateText, stepCountIs, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { memoryTool, memoryTools } from "../src/index.js";

/**
 * Runs the script through `generateText` or `streamText` with the memory tools on the store: spread from
 * `memoryTools`, or `memoryTool` under its key.
 */
const run =
  (stream: boolean, spread = true): Converse<MemoryStore> =>
  async (api, store, script, options = {}) => {
    const provider = createAnthropic({ apiKey: "offline", baseURL: `${api.baseURL}/v1` });
    const settings = {
      model: provider("claude-test"),
      tools: spread ? { ...memoryTools(store, options) } : { memory: memoryTool(store, options) },
      stopWhen: stepCountIs(script.length + 2),
      maxRetries: 0,
      maxOutputTokens: 1024,
      prompt: "Tidy up my memory.",
    };
    if (!stream) return (await generateText(settings)).text;
    const result = streamText(settings);
    return await result.text;
  };

describeMemoryToolChecks<MemoryStore>("memoryTools", {
  Directory: FsStore,
  Redis: RedisStore,
  modes: {
    generateText: run(false),
    streamText: run(true),
    "memoryTool under tools.memory": run(false, false),
  },
  fresh: () => new InMemoryStore(),
  execute: executeCommand,
  content: toolResultContent,
});

describe("memoryTools", () => {
  it("holds each tool under the key Claude calls it by, and only those", () => {
    const tools = memoryTools(new InMemoryStore());
    expect(Object.keys(tools)).toEqual(["memory"]);
    expect(tools.memory).toMatchObject({ type: "provider", id: "anthropic.memory_20250818" });
  });

  it("adds memory_search under its key with { search: true }", () => {
    const tools = memoryTools(new InMemoryStore(), { search: true });
    expect(Object.keys(tools)).toEqual(["memory", "memory_search"]);
    expect(tools.memory_search).toMatchObject({
      description:
        "Search the text of your memory files. Returns matching lines as path:line: text, in path order.",
    });
    expect(() => memoryTools(new InMemoryStore(), { search: 1 as never })).toThrow(/search/);
  });

  it("a bad sensitive option is a TypeError at once, as for memoryTool", () => {
    expect(() => memoryTools(new InMemoryStore(), { sensitive: 1 as never })).toThrow(TypeError);
  });
});
