/**
 * The real SDK client and tool runner against a local server that speaks the Messages API and plays
 * scripted assistant turns. What counts is what reaches the server: the exact `tool_result` blocks.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  contextManagement,
  handleMemoryToolUse,
  MEMORY_SYSTEM_PROMPT,
  memoryTool,
} from "../src/anthropic/index.js";
import { executeCommand, InMemoryStore } from "../src/index.js";

type Json = Record<string, unknown>;
interface Received {
  body: Json;
  headers: IncomingHttpHeaders;
}
type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: "memory"; input: Json };

/** A Messages API endpoint that answers the n-th request with the n-th scripted reply. */
const startScriptedApi = async (script: Block[][]) => {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const reply = (status: number, payload: Json) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(payload));
      };
      if (req.method !== "POST" || !req.url?.startsWith("/v1/messages")) {
        return reply(404, { type: "error", error: { type: "not_found_error", message: "no such route" } });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json;
      received.push({ body, headers: req.headers });
      const content = script[received.length - 1];
      if (!content || body["stream"] === true) {
        return reply(400, { type: "error", error: { type: "invalid_request_error", message: "off script" } });
      }
      reply(200, {
        id: `msg_${received.length}`,
        type: "message",
        role: "assistant",
        model: body["model"],
        content,
        stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 10 },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    baseURL: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const use = (id: string, input: Json): Block => ({ type: "tool_use", id, name: "memory", input });
const text = (t: string): Block => ({ type: "text", text: t });

/** The `tool_result` blocks of the last user message of a request. */
const toolResultsOf = (request: Received | undefined): unknown[] => {
  const messages = (request?.body["messages"] ?? []) as { role: string; content: unknown }[];
  const last = messages.at(-1);
  expect(last?.role).toBe("user");
  return last?.content as unknown[];
};

const LISTING_HEADER =
  "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";
const NOTES = "/memories/scraper/progress.md";

const script: Block[][] = [
  [text("Let me check my memory first."), use("toolu_01", { command: "view", path: "/memories" })],
  [
    use("toolu_02", {
      command: "create",
      path: NOTES,
      file_text: "# Web scraper\nStatus: investigating\n- timeout=5 too short\n",
    }),
    use("toolu_03", { command: "view", path: "/memories/nope.md" }),
    use("toolu_04", { command: "view", path: "/etc/passwd" }),
  ],
  // The runner starts the calls of one turn at once; the memory tool runs them in the model's order.
  [
    use("toolu_05", { command: "create", path: NOTES, file_text: "again\n" }),
    use("toolu_06", {
      command: "str_replace",
      path: NOTES,
      old_str: "Status: investigating",
      new_str: "Status: fixed",
    }),
    use("toolu_07", { command: "str_replace", path: NOTES, old_str: "t", new_str: "T" }),
  ],
  [
    use("toolu_08", { command: "view", path: NOTES }),
    use("toolu_09", { command: "create", path: "/memories/todo.md", file_text: "A\n" }),
    use("toolu_10", { command: "insert", path: "/memories/todo.md", insert_line: 1, insert_text: "B\n" }),
    use("toolu_11", { command: "view", path: "/memories/todo.md" }),
    use("toolu_12", {
      command: "rename",
      old_path: "/memories/todo.md",
      new_path: "/memories/scraper/todo.md",
    }),
    use("toolu_13", { command: "delete", path: "/memories/scraper/todo.md" }),
  ],
  [text("The fix is recorded in memory.")],
];

describe("memoryTool in the SDK's tool runner", () => {
  let api: Awaited<ReturnType<typeof startScriptedApi>>;
  const store = new InMemoryStore();
  let final: Anthropic.Beta.BetaMessage;

  beforeAll(async () => {
    api = await startScriptedApi(script);
    const client = new Anthropic({ apiKey: "test-key", baseURL: api.baseURL, maxRetries: 0 });
    final = await client.beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 1024,
      system: MEMORY_SYSTEM_PROMPT,
      tools: [memoryTool(store)],
      messages: [{ role: "user", content: "My scraper keeps timing out. Help me debug it." }],
      ...contextManagement(),
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  it("runs every scripted turn and ends on the final reply", () => {
    expect(api.received).toHaveLength(script.length);
    expect(final.content).toEqual([{ type: "text", text: "The fix is recorded in memory." }]);
  });

  it("sends the bare tool definition, the system prompt and the context management settings", () => {
    const first = api.received[0];
    expect(first?.body["tools"]).toEqual([{ type: "memory_20250818", name: "memory" }]);
    expect(first?.body["system"]).toBe(MEMORY_SYSTEM_PROMPT);
    expect(first?.body["context_management"]).toEqual(contextManagement().context_management);
    expect(String(first?.headers["anthropic-beta"])).toContain("context-management-2025-06-27");
  });

  it("answers a view of the empty memory directory", () => {
    expect(toolResultsOf(api.received[1])).toEqual([
      { type: "tool_result", tool_use_id: "toolu_01", content: `${LISTING_HEADER}\n0B\t/memories` },
    ]);
  });

  it("returns each result of a turn in order, error results verbatim with is_error", () => {
    expect(toolResultsOf(api.received[2])).toEqual([
      { type: "tool_result", tool_use_id: "toolu_02", content: `File created successfully at: ${NOTES}` },
      {
        type: "tool_result",
        tool_use_id: "toolu_03",
        content: "The path /memories/nope.md does not exist. Please provide a valid path.",
        is_error: true,
      },
      {
        type: "tool_result",
        tool_use_id: "toolu_04",
        content:
          "Error: The path /etc/passwd is outside the memory directory. All paths must start with /memories",
        is_error: true,
      },
    ]);
  });

  it("refuses to overwrite, reports edits with their snippet, and ambiguous edits as errors", () => {
    expect(toolResultsOf(api.received[3])).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_05",
        content: `Error: File ${NOTES} already exists`,
        is_error: true,
      },
      {
        type: "tool_result",
        tool_use_id: "toolu_06",
        content:
          "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" +
          "     1\t# Web scraper\n     2\tStatus: fixed\n     3\t- timeout=5 too short",
      },
      {
        type: "tool_result",
        tool_use_id: "toolu_07",
        content:
          "No replacement was performed. Multiple occurrences of old_str `t` in lines: 2, 3. Please ensure it is unique",
        is_error: true,
      },
    ]);
  });

  it("runs the calls of one turn in the order the model wrote them", () => {
    const result = (id: string, content: string) => ({ type: "tool_result", tool_use_id: id, content });
    expect(toolResultsOf(api.received[4])).toEqual([
      result(
        "toolu_08",
        `Here's the content of ${NOTES} with line numbers:\n     1\t# Web scraper\n     2\tStatus: fixed\n     3\t- timeout=5 too short`,
      ),
      result("toolu_09", "File created successfully at: /memories/todo.md"),
      result("toolu_10", "The file /memories/todo.md has been edited."),
      result("toolu_11", "Here's the content of /memories/todo.md with line numbers:\n     1\tA\n     2\tB"),
      result("toolu_12", "Successfully renamed /memories/todo.md to /memories/scraper/todo.md"),
      result("toolu_13", "Successfully deleted /memories/scraper/todo.md"),
    ]);
  });

  it("leaves the memory tree the conversation built", async () => {
    const tree = await executeCommand(store, { command: "view", path: "/memories" });
    expect(tree).toEqual({
      content: `${LISTING_HEADER}\n50B\t/memories\n50B\t/memories/scraper/\n50B\t${NOTES}`,
      isError: false,
    });
    const file = await store.read(NOTES);
    expect(new TextDecoder().decode(file?.data)).toBe(
      "# Web scraper\nStatus: fixed\n- timeout=5 too short\n",
    );
  });
});

describe("handleMemoryToolUse in a hand-written loop", () => {
  it("sends tool_result blocks with an explicit is_error", async () => {
    const api = await startScriptedApi([
      [use("toolu_a", { command: "create", path: "/memories/a.txt", file_text: "A\nB\n" })],
      [use("toolu_b", { command: "insert", path: "/memories/a.txt", insert_line: 9, insert_text: "X" })],
      [text("done")],
    ]);
    try {
      const store = new InMemoryStore();
      const client = new Anthropic({ apiKey: "test-key", baseURL: api.baseURL, maxRetries: 0 });
      const messages: Anthropic.Beta.BetaMessageParam[] = [{ role: "user", content: "Note A and B." }];
      for (;;) {
        const reply = await client.beta.messages.create({ model: "claude-test", max_tokens: 256, messages });
        messages.push({ role: "assistant", content: reply.content });
        const uses = reply.content.filter((b) => b.type === "tool_use");
        if (uses.length === 0) break;
        // One at a time, in the model's order.
        const results = [];
        for (const use of uses) results.push(await handleMemoryToolUse(use, store));
        messages.push({ role: "user", content: results });
      }
      expect(toolResultsOf(api.received[1])).toEqual([
        {
          type: "tool_result",
          tool_use_id: "toolu_a",
          content: "File created successfully at: /memories/a.txt",
          is_error: false,
        },
      ]);
      expect(toolResultsOf(api.received[2])).toEqual([
        {
          type: "tool_result",
          tool_use_id: "toolu_b",
          content:
            "Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 2]",
          is_error: true,
        },
      ]);
    } finally {
      await api.close();
    }
  });
});
