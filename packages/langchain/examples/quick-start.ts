/**
 * The memory tool in a LangChain agent (`createAgent` with `memoryMiddleware`), offline: a scripted Claude
 * (the Messages API of `@mem/testing` on a loopback port) looks at its memory, writes a note, makes a
 * mistake and answers. Against the real API, drop the scripted server and `anthropicApiUrl`, and set
 * ANTHROPIC_API_KEY.
 *
 * Run from packages/langchain:  npx tsx --conditions=@mem/source examples/quick-start.ts
 * or, in a project of your own:
 *   npm install @mem/langchain @mem/core @mem/testing langchain @langchain/anthropic @langchain/core tsx
 */
import { ChatAnthropic } from "@langchain/anthropic";
import { InMemoryStore } from "@mem/core";
import { memoryMiddleware } from "@mem/langchain";
import { memoryScript, receivedToolResults, startScriptedMessagesApi } from "@mem/testing";
import { createAgent, HumanMessage, ToolMessage } from "langchain";

const api = await startScriptedMessagesApi(
  memoryScript(
    [
      { command: "view", path: "/memories" },
      { command: "create", path: "/memories/project.md", file_text: "# Project\n- timeouts: 30s\n" },
      { command: "str_replace", path: "/memories/project.md", old_str: "60s", new_str: "30s" },
    ],
    "Noted: timeouts are 30s.",
  ),
);

try {
  const agent = createAgent({
    model: new ChatAnthropic({ model: "claude-sonnet-5-5", apiKey: "offline", anthropicApiUrl: api.url }),
    tools: [],
    middleware: [memoryMiddleware(new InMemoryStore())],
  });
  const { messages } = await agent.invoke({
    messages: [new HumanMessage("Remember that our timeouts are 30s.")],
  });
  for (const message of messages) {
    if (ToolMessage.isInstance(message)) console.log(`> (${message.status}) ${message.content}`);
  }
  console.log(`Claude: ${messages.at(-1)?.text}`);
  const errors = receivedToolResults(api.requests)
    .flat()
    .filter((result) => result.is_error);
  console.log(`sent to Claude as errors: ${errors.map((result) => result.tool_use_id).join(", ")}`);
  console.log(`tools declared: ${JSON.stringify(api.requests[0]?.body["tools"])}`);
} finally {
  await api.close();
}
