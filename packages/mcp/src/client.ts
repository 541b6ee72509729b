/** The client side: one call of a memory MCP server's tool, back as the engine's result. */
import { fromContentBlocks, type ToolResult, type ToolResultContentBlock } from "@mem/core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { MEMORY_TOOL_NAME } from "./server.js";

/**
 * Calls the `memory` tool of a server made by this package and returns its result as `executeCommand`
 * would: `{ content, isError }`, with `image` for the view of an image. Throws when the reply is not one
 * text block (or the image's text and image) with an explicit `isError`, which this package's servers
 * always send, and on protocol errors (`McpError`).
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
 * import { callMemoryTool } from "@mem/mcp";
 *
 * const client = new Client({ name: "my-app", version: "1.0.0" });
 * await client.connect(new StreamableHTTPClientTransport(new URL("http://127.0.0.1:3333/mcp")));
 * const { content, isError } = await callMemoryTool(client, { command: "view", path: "/memories" });
 * ```
 */
export async function callMemoryTool(
  client: Client,
  input: Record<string, unknown>,
  options?: RequestOptions,
): Promise<ToolResult> {
  const result = (await client.callTool(
    { name: MEMORY_TOOL_NAME, arguments: input },
    CallToolResultSchema,
    options,
  )) as CallToolResult;
  const blocks = result.content.map((item): ToolResultContentBlock | null =>
    item.type === "text"
      ? { type: "text", text: item.text }
      : item.type === "image" && (item.mimeType === "image/png" || item.mimeType === "image/jpeg")
        ? { type: "image", source: { type: "base64", media_type: item.mimeType, data: item.data } }
        : null,
  );
  const parsed =
    typeof result.isError === "boolean" && blocks.every((b) => b !== null)
      ? fromContentBlocks(blocks as ToolResultContentBlock[], result.isError)
      : null;
  if (!parsed) {
    throw new Error(
      "the memory tool's reply is not one text block, or an image view, with an explicit isError",
    );
  }
  return parsed;
}
