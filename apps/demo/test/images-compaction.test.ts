/**
 * The SDK against the demo's scripted Messages API over HTTP: what the server receives is what the real
 * API would, for image views (tool runner and a GA hand-written loop) and for compaction.
 */
import Anthropic from "@anthropic-ai/sdk";
import { InMemoryStore } from "@mem/core";
import {
  contextManagement,
  handleMemoryToolUse,
  MEMORY_TOOL_DEFINITION,
  memoryTool,
} from "@mem/core/anthropic";
import { type Block, type Conversation, startScriptedApi } from "@mem/testkit";
import { describe, expect, it } from "vitest";

const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
const IMAGE_RESULT = [
  { type: "text", text: "Here's the image /memories/chart.png:" },
  {
    type: "image",
    source: { type: "base64", media_type: "image/png", data: Buffer.from(PNG).toString("base64") },
  },
];

/** Views the chart on the first turn, then ends. */
const viewThenStop = (conversation: Conversation) =>
  conversation.messages.length === 1
    ? [{ type: "tool_use" as const, name: "memory", input: { command: "view", path: "/memories/chart.png" } }]
    : [{ type: "text" as const, text: "A chart." }];

const storeWithChart = async () => {
  const store = new InMemoryStore();
  await store.write("/memories/chart.png", PNG, { ifAbsent: true });
  return store;
};

const lastToolResults = (body: Record<string, unknown>): Block[] => {
  const messages = body["messages"] as { role: string; content: Block[] }[];
  return (messages.at(-1)?.content ?? []).filter((b) => b.type === "tool_result");
};

describe("image views reach the Messages API", () => {
  it("from the SDK's tool runner: the second request holds the tool_result with the image block", async () => {
    const api = await startScriptedApi({ model: viewThenStop });
    try {
      const client = new Anthropic({ apiKey: "offline", baseURL: api.baseURL, maxRetries: 0 });
      const final = await client.beta.messages.toolRunner({
        model: "claude-test",
        max_tokens: 512,
        tools: [memoryTool(await storeWithChart())],
        messages: [{ role: "user", content: "What is in memory?" }],
      });
      expect(final.content).toEqual([{ type: "text", text: "A chart." }]);
      expect(api.received).toHaveLength(2);
      expect(lastToolResults(api.received[1]?.body ?? {})).toEqual([
        { type: "tool_result", tool_use_id: "toolu_demo_001", content: IMAGE_RESULT },
      ]);
    } finally {
      await api.close();
    }
  });

  it("from a hand-written loop on the GA Messages API, with no beta header", async () => {
    const api = await startScriptedApi({ model: viewThenStop });
    try {
      const store = await storeWithChart();
      const client = new Anthropic({ apiKey: "offline", baseURL: api.baseURL, maxRetries: 0 });
      const messages: Anthropic.MessageParam[] = [{ role: "user", content: "What is in memory?" }];
      for (;;) {
        const reply = await client.messages.create({
          model: "claude-test",
          max_tokens: 512,
          tools: [MEMORY_TOOL_DEFINITION],
          messages,
        });
        messages.push({ role: "assistant", content: reply.content });
        const uses = reply.content.filter((b) => b.type === "tool_use");
        if (uses.length === 0) break;
        const results = [];
        for (const use of uses) results.push(await handleMemoryToolUse(use, store));
        messages.push({ role: "user", content: results });
      }
      expect(api.received).toHaveLength(2);
      expect(api.received[1]?.headers["anthropic-beta"]).toBeUndefined();
      expect(lastToolResults(api.received[1]?.body ?? {})).toEqual([
        { type: "tool_result", tool_use_id: "toolu_demo_001", content: IMAGE_RESULT, is_error: false },
      ]);
    } finally {
      await api.close();
    }
  });
});

describe("compaction alongside clearing old tool results", () => {
  it("sends both edits and both betas, which the scripted API accepts", async () => {
    const api = await startScriptedApi({ model: () => [{ type: "text", text: "ok" }] });
    try {
      const client = new Anthropic({ apiKey: "offline", baseURL: api.baseURL, maxRetries: 0 });
      await client.beta.messages.toolRunner({
        model: "claude-test",
        max_tokens: 512,
        tools: [memoryTool(new InMemoryStore())],
        messages: [{ role: "user", content: "hi" }],
        ...contextManagement({ compact: { triggerInputTokens: 150_000 } }),
      });
      const [request] = api.received;
      expect(request?.body["context_management"]).toEqual({
        edits: [
          {
            type: "clear_tool_uses_20250919",
            trigger: { type: "input_tokens", value: 100_000 },
            keep: { type: "tool_uses", value: 3 },
            exclude_tools: ["memory"],
          },
          { type: "compact_20260112", trigger: { type: "input_tokens", value: 150_000 } },
        ],
      });
      // The runner adds a beta of its own; both of ours must be there.
      expect(String(request?.headers["anthropic-beta"]).split(",")).toEqual(
        expect.arrayContaining(["context-management-2025-06-27", "compact-2026-01-12"]),
      );
    } finally {
      await api.close();
    }
  });

  it("is refused without its beta, as the API refuses it", async () => {
    const api = await startScriptedApi({ model: () => [{ type: "text", text: "ok" }] });
    try {
      const client = new Anthropic({ apiKey: "offline", baseURL: api.baseURL, maxRetries: 0 });
      const { context_management } = contextManagement({ compact: true });
      const error = await client.beta.messages
        .create({
          model: "claude-test",
          max_tokens: 16,
          messages: [{ role: "user", content: "hi" }],
          betas: ["context-management-2025-06-27"],
          context_management,
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as Error).message).toContain("compact_20260112 requires the compact-2026-01-12 beta");
    } finally {
      await api.close();
    }
  });
});
