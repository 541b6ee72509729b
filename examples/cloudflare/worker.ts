/**
 * A Claude agent on Cloudflare Workers with the memory tool on a Durable Object store: each user's
 * memory is a `MemoryObject` of its own, and each tool call is one RPC to it. The Anthropic SDK runs in
 * the Worker (it only needs `fetch`). `POST /chat` with `{ "user": "...", "message": "..." }` answers
 * `{ "reply": "...", "toolCalls": n }`.
 *
 * Deploy: `wrangler deploy` with wrangler.toml beside this file and the ANTHROPIC_API_KEY secret. The
 * test (examples/test/cloudflare.test.ts) runs it in workerd against the scripted Messages API.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { BetaMessageParam, BetaToolResultBlockParam } from "@anthropic-ai/sdk/resources/beta";
import { memoryTool } from "@mem/cloudflare";
import { MEMORY_SYSTEM_PROMPT } from "@mem/core/anthropic";

export { MemoryObject } from "@mem/cloudflare";

interface Env {
  MEMORY: unknown;
  ANTHROPIC_API_KEY: string;
  /** Another Messages API (the tests' scripted one); unset in production. */
  ANTHROPIC_BASE_URL?: string;
}

const TENANT = /^[A-Za-z0-9._@+-]{1,128}$/;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/chat")
      return new Response("not found", { status: 404 });
    const body = (await request.json().catch(() => null)) as { user?: unknown; message?: unknown } | null;
    const user = body?.user;
    const message = body?.message;
    if (
      typeof user !== "string" ||
      !TENANT.test(user) ||
      user === "." ||
      user === ".." ||
      typeof message !== "string"
    ) {
      return Response.json({ error: "send { user, message }" }, { status: 400 });
    }

    const client = new Anthropic({
      apiKey: env.ANTHROPIC_API_KEY,
      ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
    });
    const tool = memoryTool(env.MEMORY, user);
    const messages: BetaMessageParam[] = [{ role: "user", content: message }];
    let toolCalls = 0;
    for (let turn = 0; turn < 10; turn += 1) {
      const reply = await client.beta.messages.create({
        model: "claude-sonnet-5-5",
        max_tokens: 1024,
        system: MEMORY_SYSTEM_PROMPT,
        tools: [tool.definition],
        messages,
      });
      messages.push({ role: "assistant", content: reply.content });
      const results: BetaToolResultBlockParam[] = [];
      for (const block of reply.content) {
        if (block.type === "tool_use" && block.name === "memory") {
          toolCalls += 1;
          results.push(await tool.handle(block));
        }
      }
      if (results.length === 0) {
        const text = reply.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
        return Response.json({ reply: text, toolCalls });
      }
      messages.push({ role: "user", content: results });
    }
    return Response.json({ error: "too many turns" }, { status: 500 });
  },
};
