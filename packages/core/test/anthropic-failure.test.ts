/** What the integration does when the engine itself throws, which `executeCommand` is built never to do. */
import { describe, expect, it, vi } from "vitest";

vi.mock("../src/execute.js", () => ({
  executeCommand: () => Promise.reject(new TypeError("secret-token-123 in a stack of a bug")),
}));

const { handleMemoryToolUse, memoryTool } = await import("../src/anthropic/index.js");
const { InMemoryStore } = await import("../src/memory-store.js");
const { ToolError } = await import("@anthropic-ai/sdk/lib/tools/ToolError");

const input = { command: "view", path: "/memories" };

describe("an engine failure", () => {
  it("reaches the model as a generic error result, its cause only the hook", async () => {
    const seen: unknown[] = [];
    const tool = memoryTool(new InMemoryStore(), { onUnexpectedError: (e) => seen.push(e) });
    const error = await Promise.resolve(tool.run(input)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as InstanceType<typeof ToolError>).content).toBe(
      "Error: The memory tool failed unexpectedly",
    );
    expect(seen).toHaveLength(1);
    expect(String(seen[0])).toContain("secret-token-123");
  });

  it("never makes handleMemoryToolUse throw, even when the hook throws", async () => {
    const block = await handleMemoryToolUse({ id: "toolu_9", input }, new InMemoryStore(), {
      onUnexpectedError: () => {
        throw new Error("logger down");
      },
    });
    expect(block).toStrictEqual({
      type: "tool_result",
      tool_use_id: "toolu_9",
      content: "Error: The memory tool failed unexpectedly",
      is_error: true,
    });
  });
});
