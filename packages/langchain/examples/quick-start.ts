/**
 * The memory tool in a LangChain agent loop, offline: a scripted Claude (the testkit's Messages API on a
 * loopback port) looks at its memory, writes a note, makes a mistake and answers. Against the real API,
 * drop the scripted server and `anthropicApiUrl`, and set ANTHROPIC_API_KEY.
 *
 * Run from packages/langchain:  npx tsx --conditions=@mem/source examples/quick-start.ts
 */
import { ChatAnthropic } from "@langchain/anthropic";
import { type BaseMessage, HumanMessage, SystemMessage, type ToolMessage } from "@langchain/core/messages";
import { InMemoryStore, MEMORY_SYSTEM_PROMPT } from "@mem/core";
import { oneCallPerTurn, startScriptedApi } from "@mem/testkit";
import { markToolErrors, memoryTool, memoryToolNode } from "../src/index.js";

const api = await startScriptedApi({
  model: oneCallPerTurn(
    [
      { command: "view", path: "/memories" },
      { command: "create", path: "/memories/project.md", file_text: "# Project\n- timeouts: 30s\n" },
      { command: "str_replace", path: "/memories/project.md", old_str: "60s", new_str: "30s" },
    ],
    "Noted: timeouts are 30s.",
  ),
});

try {
  const store = new InMemoryStore();
  const model = new ChatAnthropic({
    model: "claude-sonnet-4-5",
    apiKey: "offline",
    anthropicApiUrl: api.baseURL,
  }).bindTools([memoryTool(store)]);
  const tools = memoryToolNode(store);

  const messages: BaseMessage[] = [
    new SystemMessage(MEMORY_SYSTEM_PROMPT),
    new HumanMessage("Remember that our timeouts are 30s."),
  ];
  for (;;) {
    const reply = await model.invoke(markToolErrors(messages));
    messages.push(reply);
    if (!reply.tool_calls?.length) {
      console.log(`Claude: ${reply.text}`);
      break;
    }
    const results = (await tools.invoke(messages)) as ToolMessage[];
    for (const [i, result] of results.entries()) {
      console.log(`> ${JSON.stringify(reply.tool_calls[i]?.args)} (${result.status})`);
      console.log(result.content);
    }
    messages.push(...results);
  }
  console.log(`tools declared: ${JSON.stringify(api.received[0]?.body["tools"])}`);
} finally {
  await api.close();
}
