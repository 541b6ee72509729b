/** An engine result as an MCP tool result: its text, or for an image view the text and the image. */
import { type ToolResult, toContentBlocks } from "@mem/core";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * The `CallToolResult` of one memory tool call. An image view becomes two content items, the text
 * `Here's the image {path}:` and `{ type: "image", data, mimeType }` (SPEC §4 "Image").
 */
export const toCallToolResult = (result: ToolResult): CallToolResult => ({
  content: toContentBlocks(result).map((block) =>
    block.type === "text"
      ? { type: "text", text: block.text }
      : { type: "image", data: block.source.data, mimeType: block.source.media_type },
  ),
  isError: result.isError,
});
