/** A tool result as Messages API content blocks, for `tool_result.content`. */
import type { ToolResult } from "./execute.js";
import type { ImageMediaType } from "./image.js";

export interface TextContentBlock {
  type: "text";
  text: string;
}

export interface ImageContentBlock {
  type: "image";
  source: { type: "base64"; media_type: ImageMediaType; data: string };
}

export type ToolResultContentBlock = TextContentBlock | ImageContentBlock;

/**
 * The content blocks of a result as the Messages API takes them in a `tool_result`: one text block, or for
 * an image view the text `Here's the image {path}:` followed by the image block (SPEC §4).
 *
 * @example
 * ```ts
 * const result = await executeCommand(store, { command: "view", path: "/memories/chart.png" });
 * const content = toContentBlocks(result);
 * // [{ type: "text", text: "Here's the image /memories/chart.png:" },
 * //  { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo..." } }]
 * ```
 */
export function toContentBlocks(result: ToolResult): ToolResultContentBlock[] {
  const { image } = result;
  if (!image) return [{ type: "text", text: result.content }];
  // `content` is `Here's the image {path}: {media_type}, {bytes} bytes`; the text block ends at the colon.
  const cut = result.content.lastIndexOf(` ${image.mediaType}, `);
  return [
    { type: "text", text: cut === -1 ? result.content : result.content.slice(0, cut) },
    { type: "image", source: { type: "base64", media_type: image.mediaType, data: image.data } },
  ];
}
