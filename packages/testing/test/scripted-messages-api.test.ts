import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Conversation,
  memoryScript,
  receivedToolResults,
  type ScriptedMessagesApi,
  startScriptedMessagesApi,
  text,
  toolResult,
  toolResults,
  toolUse,
} from "../src/index.js";

describe("the scripted Messages API", () => {
  let api: ScriptedMessagesApi;
  const seen: Conversation[] = [];
  beforeAll(async () => {
    api = await startScriptedMessagesApi((conversation) => {
      seen.push(conversation);
      return conversation.messages.length === 1
        ? [
            { type: "text", text: "Checking memory, first of all." },
            { type: "tool_use", name: "memory", input: { command: "view", path: "/memories" } },
          ]
        : [{ type: "text", text: `I have seen ${conversation.messages.length} messages.` }];
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  const post = (body: unknown, headers: Record<string, string> = { "x-api-key": "k" }) =>
    fetch(`${api.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  it("streams a reply that the SDK assembles into the scripted blocks", async () => {
    const client = new Anthropic({ apiKey: "k", baseURL: api.url, maxRetries: 0 });
    const texts: string[] = [];
    const stream = client.beta.messages.stream({
      model: "m",
      max_tokens: 100,
      messages: [{ role: "user", content: "hi" }],
    });
    stream.on("text", (delta) => texts.push(delta));
    const message = await stream.finalMessage();
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.join("")).toBe("Checking memory, first of all.");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content[1]).toMatchObject({
      type: "tool_use",
      name: "memory",
      input: { command: "view", path: "/memories" },
    });
    expect((message.content[1] as { id: string }).id).toMatch(/^toolu_demo_\d{3}$/);
  });

  it("keeps threads, so a continued turn sees the whole conversation", async () => {
    const created = (await (
      await post({
        model: "m",
        max_tokens: 10,
        system: "be brief",
        tools: [{ type: "memory_20250818", name: "memory" }],
        thread: { type: "create" },
        messages: [{ role: "user", content: "hi" }],
      })
    ).json()) as { id: string; content: { id?: string }[] };
    const toolUseId = created.content[1]?.id ?? "";
    const next = (await (
      await post({
        model: "m",
        max_tokens: 10,
        thread: { type: "continue", previous_message_id: created.id },
        messages: [
          { role: "user", content: [{ type: "tool_result", tool_use_id: toolUseId, content: "0B" }] },
        ],
      })
    ).json()) as { content: { text: string }[] };
    expect(next.content[0]?.text).toBe("I have seen 3 messages.");
    expect(seen.at(-1)?.system).toBe("be brief");
    expect(seen.at(-1)?.tools).toEqual([{ type: "memory_20250818", name: "memory" }]);
  });

  it("answers like the API when a thread is unknown, a key is missing or a route does not exist", async () => {
    const lost = await post({
      model: "m",
      max_tokens: 10,
      thread: { type: "continue", previous_message_id: "msg_nope" },
      messages: [],
    });
    expect(lost.status).toBe(404);
    expect(await lost.json()).toMatchObject({
      type: "error",
      error: { type: "not_found_error", details: { error_code: "thread_not_found" } },
    });

    const anonymous = await post({ model: "m", messages: [] }, {});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { type: "authentication_error" } });

    const elsewhere = await fetch(`${api.url}/v1/models`, { headers: { "x-api-key": "k" } });
    expect(elsewhere.status).toBe(404);

    const garbage = await fetch(`${api.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "k" },
      body: "not json",
    });
    expect(garbage.status).toBe(400);
  });

  it("records every request it answered", () => {
    expect(api.requests.length).toBeGreaterThanOrEqual(4);
    expect(api.requests[0]?.body["stream"]).toBe(true);
  });
});

describe("a script of turns, and the tool results it received", () => {
  const call = { command: "view", path: "/memories" };

  /** A hand-written agent loop on the Anthropic SDK: answers every tool call with `answer`. */
  const runLoop = async (
    api: ScriptedMessagesApi,
    answer: (n: number) => { content: string; is_error?: boolean },
  ) => {
    const client = new Anthropic({ apiKey: "offline", baseURL: api.url, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Remember." }];
    let calls = 0;
    for (;;) {
      const reply = await client.messages.create({ model: "m", max_tokens: 100, messages });
      messages.push({ role: "assistant", content: reply.content });
      const uses = reply.content.filter((b) => b.type === "tool_use");
      if (uses.length === 0) return reply.content;
      messages.push({
        role: "user",
        content: uses.map((use) => ({
          type: "tool_result" as const,
          tool_use_id: use.id,
          ...answer(++calls),
        })),
      });
    }
  };

  it("plays the turns in order and the helpers read the results each request carried", async () => {
    const api = await startScriptedMessagesApi(memoryScript([call, [call, call]], "Done."));
    try {
      const last = await runLoop(api, (n) =>
        n === 2 ? { content: "no", is_error: true } : { content: `r${n}` },
      );
      expect(last).toEqual([{ type: "text", text: "Done." }]);
      expect(api.requests).toHaveLength(3);
      expect(toolResults(api.requests[0])).toEqual([]);
      expect(receivedToolResults(api.requests)).toEqual([
        [toolResult(1, "r1")],
        [toolResult(2, "no", { isError: true }), toolResult(3, "r3")],
      ]);
    } finally {
      await api.close();
    }
  });

  it("turns may be functions of the conversation, and blocks built with text and toolUse", async () => {
    const api = await startScriptedMessagesApi([
      [text("Looking."), toolUse("memory", call)],
      (conversation) => [text(`${conversation.messages.length} messages so far.`)],
    ]);
    try {
      expect(await runLoop(api, () => ({ content: "ok" }))).toEqual([
        { type: "text", text: "3 messages so far." },
      ]);
    } finally {
      await api.close();
    }
  });

  it("a request past the script's end is refused with an invalid_request_error naming the turn", async () => {
    const api = await startScriptedMessagesApi([[text("Only turn.")]]);
    try {
      const client = new Anthropic({ apiKey: "offline", baseURL: api.url, maxRetries: 0 });
      const messages: Anthropic.MessageParam[] = [
        { role: "user", content: "a" },
        { role: "assistant", content: "b" },
        { role: "user", content: "c" },
      ];
      await expect(client.messages.create({ model: "m", max_tokens: 10, messages })).rejects.toMatchObject({
        status: 400,
        error: { error: { type: "invalid_request_error", message: "The script has no turn 2 (it has 1)" } },
      });
      expect(api.requests).toHaveLength(1);
    } finally {
      await api.close();
    }
  });

  it("a script that is neither a list nor a function is a TypeError", async () => {
    await expect(startScriptedMessagesApi("hello" as never)).rejects.toThrow(
      new TypeError("startScriptedMessagesApi: script must be a list of turns or a function"),
    );
  });
});
