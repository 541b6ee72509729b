import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import { describe, expect, it } from "vitest";
import {
  CONTEXT_MANAGEMENT_BETA,
  contextManagement,
  handleMemoryToolUse,
  MEMORY_SYSTEM_PROMPT,
  MEMORY_TIDINESS_NOTE,
  memoryTool,
} from "../src/anthropic/index.js";
import { InMemoryStore } from "../src/index.js";

const EMPTY_ROOT =
  "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories";

describe("memoryTool", () => {
  it("carries the memory_20250818 definition and extra definition fields", () => {
    const tool = memoryTool(new InMemoryStore(), { definition: { cache_control: { type: "ephemeral" } } });
    expect(tool.type).toBe("memory_20250818");
    expect(tool.name).toBe("memory");
    expect(tool.cache_control).toEqual({ type: "ephemeral" });
  });

  it("passes the raw input through parse so the engine can report malformed input", () => {
    const tool = memoryTool(new InMemoryStore());
    const raw = { command: 42 };
    expect(tool.parse(raw)).toBe(raw);
  });

  it("returns success text as it is", async () => {
    const tool = memoryTool(new InMemoryStore());
    await expect(tool.run({ command: "view", path: "/memories" })).resolves.toBe(EMPTY_ROOT);
  });

  it("throws error results as a ToolError whose content is the exact text", async () => {
    const tool = memoryTool(new InMemoryStore());
    const error = await Promise.resolve(tool.run({ command: "view", path: "/memories/nope.md" })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).content).toBe(
      "The path /memories/nope.md does not exist. Please provide a valid path.",
    );
  });

  it("applies the engine options", async () => {
    const tool = memoryTool(new InMemoryStore(), { maxFileBytes: 4 });
    const error = await Promise.resolve(
      tool.run({ command: "create", path: "/memories/a.txt", file_text: "hello" }),
    ).catch((e: unknown) => e);
    expect((error as ToolError).content).toBe(
      "Error: File /memories/a.txt would be 5 bytes, which exceeds the limit of 4 bytes",
    );
  });
});

describe("handleMemoryToolUse", () => {
  it("returns a tool_result block with is_error false on success", async () => {
    const store = new InMemoryStore();
    const block = await handleMemoryToolUse(
      { id: "toolu_1", input: { command: "create", path: "/memories/a.txt", file_text: "x\n" } },
      store,
    );
    expect(block).toStrictEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: "File created successfully at: /memories/a.txt",
      is_error: false,
    });
  });

  it("returns error results verbatim with is_error true", async () => {
    const block = await handleMemoryToolUse(
      { id: "toolu_2", input: { command: "view", path: "/etc/passwd" } },
      new InMemoryStore(),
    );
    expect(block).toStrictEqual({
      type: "tool_result",
      tool_use_id: "toolu_2",
      content:
        "Error: The path /etc/passwd is outside the memory directory. All paths must start with /memories",
      is_error: true,
    });
  });

  it("reports input that is not an object", async () => {
    const block = await handleMemoryToolUse({ id: "toolu_3", input: "view /memories" }, new InMemoryStore());
    expect(block.content).toBe("Error: The memory tool input must be a JSON object");
    expect(block.is_error).toBe(true);
  });
});

describe("contextManagement", () => {
  it("clears old tool results but keeps the memory tool's, with the beta it needs", () => {
    expect(contextManagement()).toStrictEqual({
      betas: ["context-management-2025-06-27"],
      context_management: {
        edits: [
          {
            type: "clear_tool_uses_20250919",
            trigger: { type: "input_tokens", value: 100_000 },
            keep: { type: "tool_uses", value: 3 },
            exclude_tools: ["memory"],
          },
        ],
      },
    });
    expect(CONTEXT_MANAGEMENT_BETA).toBe("context-management-2025-06-27");
  });

  it("takes its thresholds and further excluded tools from the options", () => {
    const { context_management } = contextManagement({
      triggerInputTokens: 30_000,
      keepToolUses: 5,
      clearAtLeastTokens: 8_000,
      clearToolInputs: true,
      excludeTools: ["web_search", "memory"],
    });
    expect(context_management.edits).toStrictEqual([
      {
        type: "clear_tool_uses_20250919",
        trigger: { type: "input_tokens", value: 30_000 },
        keep: { type: "tool_uses", value: 5 },
        exclude_tools: ["memory", "web_search"],
        clear_at_least: { type: "input_tokens", value: 8_000 },
        clear_tool_inputs: true,
      },
    ]);
  });
});

describe("prompt texts", () => {
  it("are the recommended texts, verbatim", () => {
    expect(MEMORY_SYSTEM_PROMPT).toBe(
      [
        "IMPORTANT: ALWAYS VIEW YOUR MEMORY DIRECTORY BEFORE DOING ANYTHING ELSE.",
        "MEMORY PROTOCOL:",
        "1. Use the `view` command of your `memory` tool to check for earlier progress.",
        "2. ... (work on the task) ...",
        "     - As you make progress, record status / progress / thoughts etc in your memory.",
        "ASSUME INTERRUPTION: Your context window might be reset at any moment, so you risk losing any progress that is not recorded in your memory directory.",
      ].join("\n"),
    );
    expect(MEMORY_TIDINESS_NOTE).toBe(
      "Note: when editing your memory folder, always try to keep its content up-to-date, coherent and organized. You can rename or delete files that are no longer relevant. Do not create new files unless necessary.",
    );
  });
});
