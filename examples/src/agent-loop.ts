/**
 * A hand-written agent loop around the Messages API: send the conversation, run every `memory` tool
 * call of the reply with `handleMemoryToolUse`, send the results back, until Claude stops asking for
 * tools. This is what `memoryTool()` and the SDK's tool runner do for you; write it yourself when you
 * need control over each turn (logging, approval, budgets).
 *
 * It runs offline: the scripted Messages API of `@mem/testing` stands in for the real one and plays a
 * small model that checks its memory, saves a preference and answers. With a real key, drop `baseURL`
 * and the scripted server.
 *
 * Run: npx -y pnpm@10 --filter @mem/examples agent-loop
 */
import Anthropic from "@anthropic-ai/sdk";
import type { BetaMessageParam, BetaToolResultBlockParam } from "@anthropic-ai/sdk/resources/beta";
import { InMemoryStore } from "@mem/core";
import {
  contextManagement,
  handleMemoryToolUse,
  MEMORY_SYSTEM_PROMPT,
  MEMORY_TOOL_DEFINITION,
} from "@mem/core/anthropic";
import { type Conversation, type ScriptedModel, startScriptedMessagesApi } from "@mem/testing";

/** The scripted model: each turn depends on how many tool results it has seen so far. */
const model: ScriptedModel = (conversation: Conversation) => {
  const results = conversation.messages.flatMap((m) =>
    typeof m.content === "string" ? [] : m.content.filter((b) => b.type === "tool_result"),
  );
  if (results.length === 0)
    return [{ type: "tool_use", name: "memory", input: { command: "view", path: "/memories" } }];
  if (results.length === 1) {
    return [
      { type: "text", text: "Nothing stored yet; saving your preference." },
      {
        type: "tool_use",
        name: "memory",
        input: { command: "create", path: "/memories/preferences.md", file_text: "- drinks: green tea\n" },
      },
    ];
  }
  return [{ type: "text", text: "Noted: green tea from now on." }];
};

const api = await startScriptedMessagesApi(model);
const client = new Anthropic({ apiKey: "offline", baseURL: api.url });
const store = new InMemoryStore();

const messages: BetaMessageParam[] = [{ role: "user", content: "Remember that I drink green tea." }];
for (let turn = 1; turn <= 10; turn += 1) {
  const reply = await client.beta.messages.create({
    model: "claude-sonnet-5-5",
    max_tokens: 1024,
    system: MEMORY_SYSTEM_PROMPT,
    tools: [MEMORY_TOOL_DEFINITION],
    messages,
    ...contextManagement(),
  });
  messages.push({ role: "assistant", content: reply.content });

  const results: BetaToolResultBlockParam[] = [];
  for (const block of reply.content) {
    if (block.type === "text") console.log(`claude: ${block.text}`);
    if (block.type !== "tool_use" || block.name !== MEMORY_TOOL_DEFINITION.name) continue;
    const result = await handleMemoryToolUse(block, store);
    console.log(`memory ${JSON.stringify(block.input)}\n  -> ${result.content}`);
    results.push(result);
  }
  if (reply.stop_reason !== "tool_use") break;
  messages.push({ role: "user", content: results });
}

console.log(
  `stored: ${JSON.stringify(new TextDecoder().decode((await store.read("/memories/preferences.md"))?.data))}`,
);
await api.close();
