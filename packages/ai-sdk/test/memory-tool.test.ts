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
import { memoryTool } from "../src/index.js";

/** Runs the script through `generateText` or `streamText` with the memory tool on the store. */
const run =
  (stream: boolean): Converse<MemoryStore> =>
  async (api, store, script, options = {}) => {
    const provider = createAnthropic({ apiKey: "offline", baseURL: `${api.baseURL}/v1` });
    const settings = {
      model: provider("claude-test"),
      tools: { memory: memoryTool(store, options) },
      stopWhen: stepCountIs(script.length + 2),
      maxRetries: 0,
      maxOutputTokens: 1024,
      prompt: "Tidy up my memory.",
    };
    if (!stream) return (await generateText(settings)).text;
    const result = streamText(settings);
    return await result.text;
  };

describeMemoryToolChecks<MemoryStore>("memoryTool", {
  Directory: FsStore,
  Redis: RedisStore,
  modes: { generateText: run(false), streamText: run(true) },
  fresh: () => new InMemoryStore(),
  execute: executeCommand,
  content: toolResultContent,
});
