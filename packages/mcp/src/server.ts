/**
 * A memory store as an MCP server: the `memory` tool (and, with `search`, `memory_search`), and the memory
 * protocol as a prompt and a resource.
 */
import {
  type ExecuteOptions,
  executeCommand,
  executeSearch,
  MEMORY_PROTOCOL_DESCRIPTION,
  MEMORY_SEARCH_TOOL_DESCRIPTION,
  MEMORY_SEARCH_TOOL_NAME,
  MEMORY_TOOL_DESCRIPTION,
  MEMORY_TOOL_OVERWRITING_DESCRIPTION,
  MEMORY_TOOL_READ_ONLY_DESCRIPTION,
  MEMORY_TOOL_TITLE,
  type MemoryStore,
  memoryMountsText,
  memorySearchInputSchema,
  memorySystemPrompt,
  memoryToolInputSchema,
  readOnlyRefusal,
  type ToolResult,
  unknownToolResult,
} from "@mem/core";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { checkServerOptions } from "./options.js";
import { toCallToolResult } from "./tool-result.js";
import { SERVER_NAME, SERVER_VERSION } from "./version.js";

/** The tool's name, as in the Messages API's `memory_20250818` tool. */
export const MEMORY_TOOL_NAME = "memory";
/** The name of the prompt holding the memory protocol (SPEC §6). */
export const MEMORY_PROTOCOL_PROMPT = "memory_protocol";
/** The URI of the resource holding the memory protocol (SPEC §6). */
export const MEMORY_PROTOCOL_URI = "memory://protocol";

export interface MemoryMcpServerOptions extends ExecuteOptions {
  /** Only `view` runs; every other command gets an error result and changes nothing. Default `false`. */
  readOnly?: boolean;
  /** Offer the memory protocol of SPEC §6 as a prompt and a resource. Default `true`. */
  protocol?: boolean;
  /**
   * Offer `memory_search` (SPEC §9) as a second tool, read-only and so also on a read-only server, with
   * the same `viewCharLimit`. Default `false`.
   */
  search?: boolean;
}

/**
 * An MCP server exposing `store` as one `memory` tool with the six commands of the memory tool. Every
 * call runs through `executeCommand`, so clients receive the specification's exact text, with `isError`
 * set on error results. The arguments are handed to the engine unvalidated: malformed or hostile input
 * gets the engine's own error results, never a protocol error. Calls arriving on one server run one at a
 * time, in arrival order, like `memoryTool` of `@mem/core/anthropic`; concurrent clients are kept safe by
 * the store.
 *
 * Connect it to a transport yourself, or use `serveStdio` / `serveHttp`.
 *
 * @example
 * ```ts
 * import { InMemoryStore } from "@mem/core";
 * import { createMemoryMcpServer } from "@mem/mcp";
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 *
 * const server = createMemoryMcpServer(new InMemoryStore(), { readOnly: false });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMemoryMcpServer(store: MemoryStore, options: MemoryMcpServerOptions = {}): McpServer {
  checkServerOptions(options);
  const { readOnly = false, protocol = true, search = false, ...execute } = options;
  const mcp = new McpServer({ name: SERVER_NAME, version: SERVER_VERSION });
  // A store made of mounts (SPEC §8): the client sees each mount and its access in the tool's description
  // and in the protocol prompt.
  const mounts = memoryMountsText(store);
  const prompt = mounts === null ? memorySystemPrompt() : memorySystemPrompt({ mounts: store });

  const tool: Tool = {
    name: MEMORY_TOOL_NAME,
    title: MEMORY_TOOL_TITLE,
    description: withMounts(
      readOnly
        ? MEMORY_TOOL_READ_ONLY_DESCRIPTION
        : execute.createOverwrites
          ? MEMORY_TOOL_OVERWRITING_DESCRIPTION
          : MEMORY_TOOL_DESCRIPTION,
      mounts,
    ),
    inputSchema: memoryToolInputSchema({ readOnly }) as Tool["inputSchema"],
    annotations: {
      title: MEMORY_TOOL_TITLE,
      readOnlyHint: readOnly,
      destructiveHint: !readOnly,
      idempotentHint: false,
      openWorldHint: false,
    },
  };

  // The low-level handlers, not `registerTool`: the SDK would validate the arguments against a Zod schema
  // and answer its own error text, where the engine must answer with the specification's.
  mcp.server.registerCapabilities({ tools: {} });
  const searchTool: Tool = {
    name: MEMORY_SEARCH_TOOL_NAME,
    description: MEMORY_SEARCH_TOOL_DESCRIPTION,
    inputSchema: memorySearchInputSchema() as Tool["inputSchema"],
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
  const tools = search ? [tool, searchTool] : [tool];
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  const searchOptions = {
    ...(execute.viewCharLimit === undefined ? {} : { viewCharLimit: execute.viewCharLimit }),
    ...(execute.onUnexpectedError ? { onUnexpectedError: execute.onUnexpectedError } : {}),
  };
  let previous: Promise<unknown> = Promise.resolve();
  const run = (input: unknown, name: string = MEMORY_TOOL_NAME): Promise<ToolResult> => {
    const task = async (): Promise<ToolResult> => {
      if (name === MEMORY_SEARCH_TOOL_NAME) return executeSearch(store, input, searchOptions);
      const refused = readOnly ? readOnlyRefusal(input) : null;
      return refused ?? (await executeCommand(store, input, execute));
    };
    // Both branches: the engine never rejects, but one broken call must not stop every later one.
    const result = previous.then(task, task);
    previous = result;
    return result;
  };

  mcp.server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    if (name !== MEMORY_TOOL_NAME && !(search && name === MEMORY_SEARCH_TOOL_NAME)) {
      return toCallToolResult(unknownToolResult(name, { search }));
    }
    // MCP carries no arguments as an absent field; the tool's input is then an empty object.
    return toCallToolResult(await run(request.params.arguments ?? {}, name));
  });

  if (protocol) {
    mcp.registerPrompt(
      MEMORY_PROTOCOL_PROMPT,
      { title: MEMORY_TOOL_TITLE, description: MEMORY_PROTOCOL_DESCRIPTION },
      () => ({
        description: MEMORY_PROTOCOL_DESCRIPTION,
        messages: [{ role: "user", content: { type: "text", text: prompt } }],
      }),
    );
    mcp.registerResource(
      MEMORY_PROTOCOL_PROMPT,
      MEMORY_PROTOCOL_URI,
      { title: MEMORY_TOOL_TITLE, description: MEMORY_PROTOCOL_DESCRIPTION, mimeType: "text/plain" },
      (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: prompt }] }),
    );
  }
  return mcp;
}

/** The tool's description, followed by the mounts of a mounted store. */
const withMounts = (description: string, mounts: string | null): string =>
  mounts === null ? description : `${description}\n\n${mounts}`;
