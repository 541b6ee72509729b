import Anthropic from "@anthropic-ai/sdk";
import { type Conversation, type ScriptedApi, startScriptedApi } from "@mem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("the scripted Messages API", () => {
  let api: ScriptedApi;
  const seen: Conversation[] = [];
  beforeAll(async () => {
    api = await startScriptedApi({
      model: (conversation) => {
        seen.push(conversation);
        return conversation.messages.length === 1
          ? [
              { type: "text", text: "Checking memory, first of all." },
              { type: "tool_use", name: "memory", input: { command: "view", path: "/memories" } },
            ]
          : [{ type: "text", text: `I have seen ${conversation.messages.length} messages.` }];
      },
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  const post = (body: unknown, headers: Record<string, string> = { "x-api-key": "k" }) =>
    fetch(`${api.baseURL}/v1/messages?beta=true`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  it("streams a reply that the SDK assembles into the scripted blocks", async () => {
    const client = new Anthropic({ apiKey: "k", baseURL: api.baseURL, maxRetries: 0 });
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

    const elsewhere = await fetch(`${api.baseURL}/v1/models`, { headers: { "x-api-key": "k" } });
    expect(elsewhere.status).toBe(404);

    const garbage = await fetch(`${api.baseURL}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "k" },
      body: "not json",
    });
    expect(garbage.status).toBe(400);
  });

  it("records every request it answered", () => {
    expect(api.received.length).toBeGreaterThanOrEqual(4);
    expect(api.received[0]?.body["stream"]).toBe(true);
  });
});
