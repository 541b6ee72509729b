import type { ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import {
  COMPACTION_BETA,
  contextManagement,
  handleMemoryToolUse,
  memoryTool,
} from "../src/anthropic/index.js";
import { InMemoryStore } from "../src/index.js";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const DATA = Buffer.from(PNG).toString("base64");
const BLOCKS = [
  { type: "text", text: "Here's the image /memories/p.png:" },
  { type: "image", source: { type: "base64", media_type: "image/png", data: DATA } },
];

const withImage = async () => {
  const store = new InMemoryStore();
  await store.write("/memories/p.png", PNG, { ifAbsent: true });
  return store;
};

describe("memoryTool", () => {
  it("returns an image view as its text and image blocks", async () => {
    const tool = memoryTool(await withImage());
    await expect(tool.run({ command: "view", path: "/memories/p.png" })).resolves.toEqual(BLOCKS);
  });

  it("passes the GA definition's optional fields through", () => {
    const tool = memoryTool(new InMemoryStore(), {
      cache_control: { type: "ephemeral" },
      defer_loading: true,
      allowed_callers: ["direct"],
      strict: true,
      input_examples: [{ command: "view", path: "/memories" }],
      maxFileBytes: 10,
    });
    const { run: _run, parse: _parse, ...definition } = tool;
    expect(definition).toStrictEqual({
      type: "memory_20250818",
      name: "memory",
      cache_control: { type: "ephemeral" },
      defer_loading: true,
      allowed_callers: ["direct"],
      strict: true,
      input_examples: [{ command: "view", path: "/memories" }],
    });
  });
});

describe("handleMemoryToolUse", () => {
  it("takes a GA tool_use block and answers an image view with two blocks", async () => {
    const block: ToolUseBlock = {
      type: "tool_use",
      id: "toolu_img",
      name: "memory",
      input: { command: "view", path: "/memories/p.png" },
      caller: { type: "direct" },
    };
    expect(await handleMemoryToolUse(block, await withImage())).toStrictEqual({
      type: "tool_result",
      tool_use_id: "toolu_img",
      content: BLOCKS,
      is_error: false,
    });
  });

  it("answers null without throwing", async () => {
    expect(await handleMemoryToolUse(null, new InMemoryStore())).toStrictEqual({
      type: "tool_result",
      tool_use_id: "",
      content: "Error: The memory tool input must be a JSON object",
      is_error: true,
    });
  });

  it("rejects a block for another tool with a TypeError naming it, touching nothing", async () => {
    const store = new InMemoryStore();
    const error = await handleMemoryToolUse(
      { id: "t", name: "web_search", input: { command: "create", path: "/memories/a", file_text: "x" } },
      store,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(
      'handleMemoryToolUse: the tool_use block is for the tool "web_search", not "memory"',
    );
    expect(await store.stat("/memories/a")).toBeNull();
  });
});

describe("contextManagement with compaction", () => {
  it("adds the compact_20260112 edit after the clearing edit, with its beta", () => {
    expect(
      contextManagement({
        compact: { triggerInputTokens: 150_000, instructions: "Keep decisions.", pauseAfterCompaction: true },
      }),
    ).toStrictEqual({
      betas: ["context-management-2025-06-27", "compact-2026-01-12"],
      context_management: {
        edits: [
          {
            type: "clear_tool_uses_20250919",
            trigger: { type: "input_tokens", value: 100_000 },
            keep: { type: "tool_uses", value: 3 },
            exclude_tools: ["memory"],
          },
          {
            type: "compact_20260112",
            trigger: { type: "input_tokens", value: 150_000 },
            instructions: "Keep decisions.",
            pause_after_compaction: true,
          },
        ],
      },
    });
    expect(contextManagement({ compact: true }).context_management.edits[1]).toStrictEqual({
      type: "compact_20260112",
    });
    expect(contextManagement({ compact: false }).betas).toEqual(["context-management-2025-06-27"]);
    expect(COMPACTION_BETA).toBe("compact-2026-01-12");
  });
});
