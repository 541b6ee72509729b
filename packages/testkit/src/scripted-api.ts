/**
 * A local stand-in for the Messages API: it answers `POST /v1/messages` with the replies of a scripted
 * model, as JSON or as a server-sent event stream, and holds message threads the way the API does, so
 * the real SDK client and tool runner work against it unchanged.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sleep } from "./process-tools.js";
import { checkContextManagement, checkToolResultImages, InvalidRequest } from "./request-checks.js";

export interface TextBlock {
  type: "text";
  text: string;
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | { type: string; text?: string; source?: unknown }[];
  is_error?: boolean;
}
export type Block = TextBlock | ToolUseBlock | ToolResultBlock | { type: string };

export interface Message {
  role: "user" | "assistant";
  content: string | Block[];
}

/** Everything the model sees for one turn: the whole conversation, threads resolved. */
export interface Conversation {
  system: unknown;
  tools: unknown[];
  messages: Message[];
}

/** A reply of the scripted model. Tool use ids are assigned by the server. */
export type ScriptedBlock = TextBlock | Omit<ToolUseBlock, "id">;

/** Decides the next assistant turn from the conversation so far. */
export type ScriptedModel = (conversation: Conversation) => ScriptedBlock[];

/** One request as the server received it. */
export interface ReceivedRequest {
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

export interface ScriptedApiOptions {
  model: ScriptedModel;
  /** Pause between streamed chunks, so that a terminal shows the text arriving. Default 0. */
  chunkDelayMs?: number;
}

export interface ScriptedApi {
  /** `http://127.0.0.1:{port}`: pass it to the client as `baseURL`. */
  baseURL: string;
  /** Every request in arrival order. */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/**
 * Starts the server on a free loopback port.
 *
 * @example
 * ```ts
 * const api = await startScriptedApi({ model: () => [{ type: "text", text: "Hello" }] });
 * const client = new Anthropic({ apiKey: "offline", baseURL: api.baseURL });
 * // ... client.beta.messages.toolRunner({ ... })
 * await api.close();
 * ```
 */
export const startScriptedApi = async (options: ScriptedApiOptions): Promise<ScriptedApi> => {
  const received: ReceivedRequest[] = [];
  const threads = new Map<string, Conversation>();
  let replies = 0;
  let toolUses = 0;

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/v1/messages") {
      throw new ApiError(404, "not_found_error", `No route ${req.method} ${req.url}`);
    }
    if (!req.headers["x-api-key"] && !req.headers.authorization) {
      throw new ApiError(401, "authentication_error", "x-api-key header is required");
    }
    const body = await readJson(req);
    received.push({ body, headers: req.headers });
    const conversation = resolveThread(body, threads);
    try {
      checkContextManagement(body, req.headers);
      checkToolResultImages(conversation.messages);
    } catch (error) {
      if (error instanceof InvalidRequest) throw new ApiError(400, "invalid_request_error", error.message);
      throw error;
    }

    const blocks = options
      .model(conversation)
      .map((block) =>
        block.type === "tool_use"
          ? { ...block, id: `toolu_demo_${String(++toolUses).padStart(3, "0")}` }
          : block,
      );
    const id = `msg_demo_${String(++replies).padStart(3, "0")}`;
    const reply = {
      id,
      type: "message",
      role: "assistant",
      model: String(body["model"]),
      content: blocks,
      stop_reason: blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: roughTokens(conversation), output_tokens: roughTokens(blocks) },
    };
    threads.set(id, {
      ...conversation,
      messages: [...conversation.messages, { role: "assistant", content: blocks }],
    });

    if (body["stream"] === true) await streamReply(res, reply, options.chunkDelayMs ?? 0);
    else sendJson(res, 200, reply);
  };

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      const e = error instanceof ApiError ? error : new ApiError(500, "api_error", String(error));
      if (res.headersSent) return res.destroy();
      sendJson(res, e.status, {
        type: "error",
        error: { type: e.type, message: e.message, ...(e.details && { details: e.details }) },
        request_id: `req_${randomUUID()}`,
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
};

/** The conversation a request continues: a new thread, a stored one, or the full history it carries. */
const resolveThread = (body: Record<string, unknown>, threads: Map<string, Conversation>): Conversation => {
  const messages = asMessages(body["messages"]);
  const thread = body["thread"] as { type?: string; previous_message_id?: string } | undefined;
  if (thread?.type === "continue") {
    const previous = threads.get(thread.previous_message_id ?? "");
    if (!previous) {
      throw new ApiError(404, "not_found_error", "thread not found", { error_code: "thread_not_found" });
    }
    return { ...previous, messages: [...previous.messages, ...messages] };
  }
  const tools = body["tools"];
  return { system: body["system"], tools: Array.isArray(tools) ? tools : [], messages };
};

const asMessages = (value: unknown): Message[] => {
  if (!Array.isArray(value)) throw new ApiError(400, "invalid_request_error", "messages: must be a list");
  return value as Message[];
};

const readJson = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (typeof body === "object" && body !== null && !Array.isArray(body))
      return body as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new ApiError(400, "invalid_request_error", "The request body is not a JSON object");
};

const sendJson = (res: ServerResponse, status: number, payload: unknown): void => {
  res.writeHead(status, { "content-type": "application/json", "request-id": `req_${randomUUID()}` });
  res.end(JSON.stringify(payload));
};

const roughTokens = (value: unknown): number => Math.ceil(JSON.stringify(value).length / 4);

type Reply = {
  content: (TextBlock | ToolUseBlock | { type: string })[];
  stop_reason: string;
  usage: { output_tokens: number };
} & Record<string, unknown>;

/** Sends a reply as the event stream of a streaming request: text in word chunks, tool input as JSON parts. */
const streamReply = async (res: ServerResponse, reply: Reply, delayMs: number): Promise<void> => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = async (event: Record<string, unknown> & { type: string }, pause = false) => {
    res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    if (pause && delayMs > 0) await sleep(delayMs);
  };
  await send({
    type: "message_start",
    message: { ...reply, content: [], stop_reason: null, usage: { ...reply.usage, output_tokens: 1 } },
  });
  for (const [index, block] of reply.content.entries()) {
    if (block.type === "text") {
      await send({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const text of chunks((block as TextBlock).text, /(?<=\s)/)) {
        await send({ type: "content_block_delta", index, delta: { type: "text_delta", text } }, true);
      }
    } else {
      const tool = block as ToolUseBlock;
      await send({ type: "content_block_start", index, content_block: { ...tool, input: {} } });
      for (const partial_json of chunks(JSON.stringify(tool.input), /(?<=,)/)) {
        await send(
          { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } },
          true,
        );
      }
    }
    await send({ type: "content_block_stop", index });
  }
  await send({
    type: "message_delta",
    delta: { stop_reason: reply.stop_reason, stop_sequence: null },
    usage: reply.usage,
  });
  await send({ type: "message_stop" });
  res.end();
};

/** Splits `text` after each separator match, three pieces per chunk. */
const chunks = (text: string, separator: RegExp): string[] => {
  const pieces = text.split(separator);
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i += 3) out.push(pieces.slice(i, i + 3).join(""));
  return out;
};
