/** A tool result as Messages API content blocks, for `tool_result.content`. */
import type { ToolResult } from "./execute.js";
import type { ImageMediaType } from "./image.js";
import { msg } from "./messages.js";

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

/**
 * What a `tool_result` carries for a result: its text, or for an image view the two blocks of
 * {@link toContentBlocks}. The one rule every surface of the Messages API follows.
 *
 * @example
 * ```ts
 * const result = await executeCommand(store, { command: "delete", path: "/memories/old.md" });
 * toolResultContent(result); // "Successfully deleted /memories/old.md"
 * ```
 */
export function toolResultContent(result: ToolResult): string | ToolResultContentBlock[] {
  return result.image ? toContentBlocks(result) : result.content;
}

/** The number of bytes a padded base64 text stands for. */
const base64Bytes = (data: string): number =>
  (data.length / 4) * 3 - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);

/**
 * The inverse of {@link toContentBlocks}: the result that a protocol carried as content blocks, for a
 * client that wants `executeCommand`'s `{ content, isError, image? }` back. `null` when the blocks are not
 * one text block, or the image header and one image.
 *
 * @example
 * ```ts
 * fromContentBlocks([{ type: "text", text: "Successfully deleted /memories/a" }], false)
 * // { content: "Successfully deleted /memories/a", isError: false }
 * ```
 */
export function fromContentBlocks(
  blocks: readonly ToolResultContentBlock[],
  isError: boolean,
): ToolResult | null {
  const [first, second, ...rest] = blocks;
  if (first?.type !== "text" || rest.length > 0) return null;
  if (!second) return { content: first.text, isError };
  const prefix = msg.imageHeader("");
  const header = first.text;
  if (second.type !== "image" || !header.startsWith(prefix.slice(0, -1)) || !header.endsWith(":"))
    return null;
  const path = header.slice(prefix.length - 1, -1);
  const { media_type: mediaType, data } = second.source;
  return {
    content: msg.imageText(path, mediaType, base64Bytes(data)),
    isError,
    image: { mediaType, data },
  };
}
