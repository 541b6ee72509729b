import { ChatAnthropic } from "@langchain/anthropic";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { InMemoryStore } from "@mem/core";
import { lastToolResults, PNG_BYTES, PNG_PATH, scriptedMemoryModel, startScriptedApi } from "@mem/testkit";
import { describe, expect, it } from "vitest";
import { markToolErrors, memoryTool, memoryToolNode } from "../src/index.js";

const call = (id: string, args: Record<string, unknown>, name = "memory") => ({
  id,
  name,
  args,
  type: "tool_call" as const,
});

describe("memoryToolNode", () => {
  it("answers the last AI message's calls in order, in the shape it was given", async () => {
    const store = new InMemoryStore();
    await store.write(PNG_PATH, PNG_BYTES, { ifAbsent: true });
    const node = memoryToolNode(store);
    const ai = new AIMessage({
      content: "",
      tool_calls: [
        call("a", { command: "create", path: "/memories/x.md", file_text: "x\n" }),
        call("b", { command: "view", path: PNG_PATH }),
        call("c", { command: "view", path: "/etc/passwd" }),
        call("d", { query: "x" }, "search"),
      ],
    });
    const out = await node.invoke({ messages: [new HumanMessage("hi"), ai] });
    const messages = Array.isArray(out) ? [] : out.messages;
    expect(messages.map((m) => [m.tool_call_id, m.status, m.content])).toEqual([
      ["a", "success", "File created successfully at: /memories/x.md"],
      [
        "b",
        "success",
        [
          { type: "text", text: `Here's the image ${PNG_PATH}:` },
          {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgoAAAANSUhEUg==" },
          },
        ],
      ],
      [
        "c",
        "error",
        "Error: The path /etc/passwd is outside the memory directory. All paths must start with /memories",
      ],
      ["d", "error", "Error: Unknown tool `search`. The only tool here is `memory`"],
    ]);
  });
});

describe("memoryTool", () => {
  it("invoked with a tool call, answers with the executor's ToolMessage", async () => {
    const tool = memoryTool(new InMemoryStore());
    const ok = await tool.invoke(call("a", { command: "create", path: "/memories/x.md", file_text: "x\n" }));
    expect(ok).toBeInstanceOf(ToolMessage);
    expect([ok.status, ok.content, ok.tool_call_id]).toEqual([
      "success",
      "File created successfully at: /memories/x.md",
      "a",
    ]);
    const error = await tool.invoke(
      call("b", { command: "create", path: "/memories/x.md", file_text: "y\n" }),
    );
    expect([error.status, error.content]).toEqual(["error", "Error: File /memories/x.md already exists"]);
  });
});

describe("markToolErrors", () => {
  const missing = { command: "view", path: "/memories/missing.md" };
  const result = {
    type: "tool_result",
    tool_use_id: "toolu_demo_001",
    content: "The path /memories/missing.md does not exist. Please provide a valid path.",
  };

  /** One call of the memory tool answered by the executor; the tool_result block of the next request. */
  const sentResult = async (mark: (messages: BaseMessage[]) => BaseMessage[]) => {
    const api = await startScriptedApi({ model: scriptedMemoryModel([{ calls: [missing] }]) });
    try {
      const store = new InMemoryStore();
      const model = new ChatAnthropic({
        model: "claude-test",
        apiKey: "offline",
        anthropicApiUrl: api.baseURL,
        maxRetries: 0,
      }).bindTools([memoryTool(store)]);
      const messages: BaseMessage[] = [new HumanMessage("Look.")];
      messages.push(await model.invoke(mark(messages)));
      messages.push(...((await memoryToolNode(store).invoke(messages)) as BaseMessage[]));
      await model.invoke(mark(messages));
      return lastToolResults(api.received[1]?.body ?? {});
    } finally {
      await api.close();
    }
  };

  it("puts is_error: true on the tool_result of an error in ChatAnthropic's request", async () => {
    expect(await sentResult(markToolErrors)).toEqual([{ ...result, is_error: true }]);
  });

  it("is needed: @langchain/anthropic leaves a ToolMessage's error status out of the request", async () => {
    // When a release sends the status itself, this fails, and markToolErrors can become a no-op.
    expect(await sentResult((messages) => messages)).toEqual([result]);
  });
});
