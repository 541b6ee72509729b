/**
 * A local stand-in for the Messages API: it answers `POST /v1/messages` with the turns of a script of
 * Claude's replies, as JSON or as a server-sent event stream, and holds message threads the way the API
 * does, so a real client (the Anthropic SDK and its tool runner, the AI SDK, LangChain, a loop of one's
 * own) works against it unchanged.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkContextManagement, checkToolResultImages, InvalidRequest } from "./request-checks.js";
import { streamReply } from "./stream.js";
import { toolUseId } from "./tool-results.js";
import type { Conversation, Message, ReceivedRequest, Script, ScriptedModel } from "./types.js";

export interface ScriptedMessagesApiOptions {
  /** Pause between streamed chunks, so that a terminal shows the text arriving. Default 0. */
  chunkDelayMs?: number;
}

export interface ScriptedMessagesApi {
  /**
   * `http://127.0.0.1:{port}`: the Anthropic SDK's `baseURL`, ChatAnthropic's `anthropicApiUrl`; the AI
   * SDK's provider takes `${url}/v1`.
   */
  url: string;
  /** Every request to `/v1/messages`, in arrival order, refused ones included. */
  requests: ReceivedRequest[];
  /** Stops the server and drops open connections. */
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

/** The model that plays `script`: its n-th turn answers a conversation holding n - 1 replies. */
const modelOf = (script: Script): ScriptedModel => {
  if (typeof script === "function") return script;
  if (!Array.isArray(script))
    throw new TypeError("startScriptedMessagesApi: script must be a list of turns or a function");
  return (conversation) => {
    const n = conversation.messages.filter((m) => m.role === "assistant").length;
    const turn = script[n];
    if (turn === undefined) {
      throw new ApiError(
        400,
        "invalid_request_error",
        `The script has no turn ${n + 1} (it has ${script.length})`,
      );
    }
    return typeof turn === "function" ? turn(conversation) : [...turn];
  };
};

/**
 * Starts the server on a free loopback port, playing `script`: Claude's turns in order, or a function
 * that decides each turn from the conversation.
 *
 * @example
 * ```ts
 * const api = await startScriptedMessagesApi([[{ type: "text", text: "Hello" }]]);
 * const client = new Anthropic({ apiKey: "offline", baseURL: api.url });
 * // ... client.messages.create({ ... })
 * await api.close();
 * ```
 */
export const startScriptedMessagesApi = async (
  script: Script,
  options: ScriptedMessagesApiOptions = {},
): Promise<ScriptedMessagesApi> => {
  const model = modelOf(script);
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

    const blocks = model(conversation).map((block) =>
      block.type === "tool_use" ? { ...block, id: toolUseId(++toolUses) } : block,
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
    url: `http://127.0.0.1:${port}`,
    requests: received,
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
