/** view of an image file (SPEC §4 "Image"): the name makes it an image, the bytes decide its type. */
import { msg } from "./messages.js";

/** The media types an image view can return: those the Messages API accepts and the tool displays. */
export type ImageMediaType = "image/png" | "image/jpeg";

/** An image a view returned: its media type and its bytes in base64. */
export interface ToolImage {
  mediaType: ImageMediaType;
  data: string;
}

const IMAGE_NAME = /\.(png|jpe?g)$/i;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff] as const;

/** True for a path whose name ends in `.png`, `.jpg` or `.jpeg`, in any letter case. */
export const isImagePath = (path: string): boolean => IMAGE_NAME.test(path);

const startsWith = (data: Uint8Array, signature: readonly number[]): boolean =>
  data.length >= signature.length && signature.every((byte, i) => data[i] === byte);

/** The media type the bytes announce, never the name; `null` when they are neither PNG nor JPEG. */
export const sniffImage = (data: Uint8Array): ImageMediaType | null => {
  if (startsWith(data, PNG_SIGNATURE)) return "image/png";
  if (startsWith(data, JPEG_SIGNATURE)) return "image/jpeg";
  return null;
};

const BASE64_CHUNK = 0x8000;

/** Base64 of `data`: Node's native encoder where there is one, `btoa` in chunks elsewhere. */
export const toBase64 = (data: Uint8Array): string => {
  const native = (
    globalThis as {
      Buffer?: { from(b: ArrayBuffer, o: number, l: number): { toString(e: "base64"): string } };
    }
  ).Buffer;
  if (native)
    return native.from(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength).toString("base64");
  let binary = "";
  for (let i = 0; i < data.length; i += BASE64_CHUNK) {
    binary += String.fromCharCode(...data.subarray(i, i + BASE64_CHUNK));
  }
  return btoa(binary);
};

export type RenderedImage =
  | { content: string; isError: false; image: ToolImage }
  | { content: string; isError: true };

/**
 * The view of an image file: `view_range` refused, then the size limit, then the signature. `content` is
 * the text-only form, for surfaces that carry only text.
 */
export function renderImage(
  path: string,
  data: Uint8Array,
  range: readonly [number, number] | undefined,
  maxImageBytes: number,
): RenderedImage {
  if (range) return { content: msg.viewRangeOnImage(), isError: true };
  if (data.length > maxImageBytes) {
    return { content: msg.imageTooLarge(path, data.length, maxImageBytes), isError: true };
  }
  const mediaType = sniffImage(data);
  if (!mediaType) return { content: msg.notAnImage(path), isError: true };
  return {
    content: msg.imageText(path, mediaType, data.length),
    isError: false,
    image: { mediaType, data: toBase64(data) },
  };
}
