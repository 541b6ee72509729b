/**
 * The memory tool in an AI SDK agent, offline: a scripted Claude (the Messages API of `@mem/testing` on a
 * loopback port) looks at its memory, writes a note, reads it back and answers. Against the real API,
 * drop the scripted server and `baseURL`, and set ANTHROPIC_API_KEY.
 *
 * Run from packages/ai-sdk:  npx tsx --conditions=@mem/source examples/quick-start.ts
 * or, in a project of your own:  npm install @mem/ai-sdk @mem/core @mem/testing ai @ai-sdk/anthropic tsx
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { memoryTools } from "@mem/ai-sdk";
import { InMemoryStore, MEMORY_SYSTEM_PROMPT, type ToolResult } from "@mem/core";
import { memoryScript, startScriptedMessagesApi } from "@mem/testing";
import { generateText, stepCountIs } from "ai";

const api = await startScriptedMessagesApi(
  memoryScript(
    [
      { command: "view", path: "/memories" },
      { command: "create", path: "/memories/project.md", file_text: "# Project\n- timeouts: 30s\n" },
      { command: "view", path: "/memories/project.md" },
    ],
    "Noted: timeouts are 30s.",
  ),
);

try {
  const anthropic = createAnthropic({ apiKey: "offline", baseURL: `${api.url}/v1` });
  const store = new InMemoryStore();
  const { text, steps } = await generateText({
    model: anthropic("claude-sonnet-5-5"),
    maxOutputTokens: 1024,
    system: MEMORY_SYSTEM_PROMPT,
    tools: { ...memoryTools(store) },
    stopWhen: stepCountIs(10),
    prompt: "Remember that our timeouts are 30s.",
  });
  for (const step of steps) {
    for (const result of step.toolResults) {
      console.log(`> ${JSON.stringify(result.input)}`);
      console.log((result.output as ToolResult).content);
    }
  }
  console.log(`Claude: ${text}`);
  console.log(`tools declared: ${JSON.stringify(api.requests[0]?.body["tools"])}`);
} finally {
  await api.close();
}
