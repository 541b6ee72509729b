/**
 * `view_range` windows from the read-text statement (see statements.ts): a small file's from its text,
 * a large one's through the store's `LineCache`, so that the next window of an unchanged file costs a
 * row of a few bytes instead of the file.
 */
import { type HeldLines, type LineCache, LineIndex, type LineWindow, linesOfText } from "@mem/core";

/**
 * The window from `row`, the statement's answer for a caller that held `held` (from `cache`, under `key`)
 * when it asked, keeping a large file's lines in `cache`; `undefined` for a file stored as bytes, which
 * core then reads whole.
 */
export const windowOfRow = (
  row: Record<string, unknown>,
  cache: LineCache | undefined,
  key: string,
  held: HeldLines | undefined,
  from: number,
  through: number,
): LineWindow | undefined => {
  const token = String(row["r_token"]);
  if (row["r_textual"] !== true) {
    cache?.delete(key);
    return undefined;
  }
  if (held && held.token === token) return held.index.window(from, through);
  const text = row["r_text"];
  if (typeof text !== "string") return undefined;
  const size = Number(row["r_size"]);
  if (!cache?.keeps(size)) {
    cache?.delete(key);
    return { size, ...linesOfText(text, from, through) };
  }
  const index = LineIndex.ofText(text, size);
  cache.put(key, token, index);
  return index.window(from, through);
};
