/** view of a file: numbering, `view_range`, the 999,999-line limit and the output budget. */
import { numberLine, scanLines } from "./lines.js";
import { msg } from "./messages.js";
import { decodeUtf8, isValidUtf8 } from "./text.js";

export const MAX_LINES = 999_999;

export type Rendered = { content: string; isError: boolean };

/**
 * Renders a file's bytes as view shows it: one UTF-8 check, one newline scan over the bytes that also
 * finds the window, and a decode of the window's bytes only.
 *
 * @example
 * ```ts
 * renderFile("/memories/a.txt", new TextEncoder().encode("x\ny\n"), undefined, 16_000).content
 * // "Here's the content of /memories/a.txt with line numbers:\n     1\tx\n     2\ty"
 * ```
 */
export function renderFile(
  path: string,
  data: Uint8Array,
  range: readonly [number, number] | undefined,
  charLimit: number,
): Rendered {
  if (!isValidUtf8(data)) return { content: msg.notUtf8(path), isError: true };
  const { from, through } = windowOf(range);
  const scan = scanLines(data, from, through);
  // Only the window's bytes are decoded: lines `from` to `to`, without the `\n` that ends the last one.
  return renderLines(
    path,
    scan.lines,
    () => decodeUtf8(data.subarray(scan.start, scan.end)) ?? "",
    range,
    charLimit,
  );
}

/** The lines a view of `range` shows at most: `from` to `through` (1-based, inclusive). */
export const windowOf = (range: readonly [number, number] | undefined): { from: number; through: number } => {
  const from = range ? range[0] : 1;
  return { from, through: range && range[1] !== -1 ? Math.max(range[1], from) : Number.POSITIVE_INFINITY };
};

/**
 * Renders a view of a UTF-8 text file of `n` lines from the text of its window (see `windowOf`), as
 * `renderFile` does from the whole file: what a store's `readLines` answer becomes.
 *
 * @example
 * ```ts
 * renderLines("/memories/a.txt", 3, () => "y", [2, 2], 16_000).content
 * // "Here's the content of /memories/a.txt with line numbers:\n     2\ty"
 * ```
 */
export function renderLines(
  path: string,
  n: number,
  window: () => string,
  range: readonly [number, number] | undefined,
  charLimit: number,
): Rendered {
  if (n > MAX_LINES) return { content: msg.tooManyLines(path), isError: true };
  const from = range ? range[0] : 1;
  let to = n;
  if (range) {
    const [start, end] = range;
    if (start < 1 || start > n) return { content: msg.viewRangeStart(start, end, n), isError: true };
    if (end !== -1 && end < start) return { content: msg.viewRangeEnd(start, end), isError: true };
    to = end === -1 ? n : Math.min(end, n);
  }

  const header = msg.fileHeader(path);
  if (n === 0) return { content: header, isError: false };

  const text = window();
  // Whole lines within the budget. A first line whose own text exceeds the budget is cut to it, with a
  // note, so that every view shows something and paging makes progress.
  const shown: string[] = [];
  let used = 0;
  let last = from - 1;
  let offset = 0;
  for (let i = from; i <= to; i++) {
    const newline = text.indexOf("\n", offset);
    const end = newline === -1 ? text.length : newline;
    if (shown.length === 0 && end - offset > charLimit) {
      shown.push(numberLine(i, cutLine(text, offset, charLimit)), msg.lineCut(i, end - offset, charLimit));
      last = i;
      break;
    }
    const numbered = numberLine(i, text.slice(offset, end));
    const cost = numbered.length + (shown.length > 0 ? 1 : 0);
    if (shown.length > 0 && used + cost > charLimit) break;
    shown.push(numbered);
    used += cost;
    last = i;
    offset = end + 1;
  }
  const body = `${header}\n${shown.join("\n")}`;
  if (last < to) return { content: `${body}\n${msg.truncated(last, n)}`, isError: false };
  return { content: body, isError: false };
}

/** The first `limit` code units of the line at `offset`, less a high surrogate the cut would orphan. */
const cutLine = (text: string, offset: number, limit: number): string => {
  const lastUnit = text.charCodeAt(offset + limit - 1);
  return text.slice(offset, offset + limit - (lastUnit >= 0xd800 && lastUnit <= 0xdbff ? 1 : 0));
};
