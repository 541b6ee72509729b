import { fileURLToPath } from "node:url";
import { type Conversation, type ScriptedApi, type ScriptedModel, startScriptedApi } from "@mem/testkit";
import { bundleWorker } from "@mem/testkit/workerd";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The scripted model: it views its memory, saves what the user says when it is new, then answers. */
const model: ScriptedModel = (conversation: Conversation) => {
  const results = conversation.messages.flatMap((m) =>
    typeof m.content === "string" ? [] : m.content.filter((b) => b.type === "tool_result"),
  ) as { content: unknown }[];
  const said = String(conversation.messages[0]?.content ?? "");
  if (results.length === 0)
    return [{ type: "tool_use", name: "memory", input: { command: "view", path: "/memories" } }];
  const listing = String(results[0]?.content);
  if (results.length === 1 && listing.includes("/memories/preferences.md")) {
    return [
      { type: "tool_use", name: "memory", input: { command: "view", path: "/memories/preferences.md" } },
    ];
  }
  if (results.length === 1) {
    return [
      {
        type: "tool_use",
        name: "memory",
        input: { command: "create", path: "/memories/preferences.md", file_text: `- ${said}\n` },
      },
    ];
  }
  return [{ type: "text", text: `Last tool result: ${String(results[results.length - 1]?.content)}` }];
};

let api: ScriptedApi;
let worker: Miniflare;
const example = fileURLToPath(new URL("../cloudflare/worker.ts", import.meta.url));

beforeAll(async () => {
  api = await startScriptedApi({ model });
  worker = new Miniflare({
    // The example as wrangler would bundle it, from the workspace's TypeScript sources.
    modules: [{ type: "ESModule", path: "worker.mjs", contents: await bundleWorker(example) }],
    compatibilityDate: "2026-07-01", // workerd refuses dates after its own build
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { MEMORY: { className: "MemoryObject", useSQLite: true } },
    bindings: { ANTHROPIC_API_KEY: "offline", ANTHROPIC_BASE_URL: api.baseURL },
  });
  await worker.ready;
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await api?.close();
});

const chat = async (user: string, message: string): Promise<{ reply: string; toolCalls: number }> => {
  const response = await worker.dispatchFetch("http://worker/chat", {
    method: "POST",
    body: JSON.stringify({ user, message }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { reply: string; toolCalls: number };
};

describe("examples/cloudflare: a Claude agent in workerd with memory in Durable Objects", () => {
  it("remembers across conversations, per user, through the scripted Messages API", async () => {
    expect(await chat("ada", "drinks: green tea")).toEqual({
      reply: "Last tool result: File created successfully at: /memories/preferences.md",
      toolCalls: 2,
    });
    // A new conversation of the same user finds the memory in her object.
    expect(await chat("ada", "what do I drink?")).toEqual({
      reply:
        "Last tool result: Here's the content of /memories/preferences.md with line numbers:\n     1\t- drinks: green tea",
      toolCalls: 2,
    });
    // Another user's object holds nothing of hers.
    expect(await chat("grace", "drinks: coffee")).toEqual({
      reply: "Last tool result: File created successfully at: /memories/preferences.md",
      toolCalls: 2,
    });
    // The Worker sent the memory tool and the exact tool results to the Messages API.
    const last = api.received[api.received.length - 1]?.body as { tools: unknown[]; messages: unknown[] };
    expect(last.tools).toEqual([{ type: "memory_20250818", name: "memory" }]);
    expect(JSON.stringify(last.messages)).toContain(
      '"content":"File created successfully at: /memories/preferences.md"',
    );
    expect(api.received).toHaveLength(9);
  });

  it("refuses a request without a user or message, before any model call", async () => {
    const before = api.received.length;
    const response = await worker.dispatchFetch("http://worker/chat", { method: "POST", body: "{}" });
    expect(response.status).toBe(400);
    expect(api.received.length).toBe(before);
  });
});
