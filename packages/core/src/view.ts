/** view of a file: numbering, `view_range`, the 999,999-line limit and the output budget. */
import { isUtf8 } from "node:buffer";
import { numberLine } from "./lines.js";
import { msg } from "./messages.js";

export const MAX_LINES = 999_999;

export type Rendered = { content: string; isError: boolean };

const NEWLINE = 0x0a;

/**
 * Renders a file's bytes as view shows it. It works on the bytes: only the lines shown are decoded, so
 * paging through a large file costs one validation pass, one newline scan and the window itself.
 * (0x0A never occurs inside a multi-byte UTF-8 sequence, so byte lines are text lines.)
 *
 * @example
 * ```ts
 * renderFile("/memories/a.txt", new TextEncoder().encode("x\ny\n"), undefined, 64_000).content
 * // "Here's the content of /memories/a.txt with line numbers:\n     1\tx\n     2\ty"
 * ```
 */
export function renderFile(
  path: string,
  data: Uint8Array,
  range: readonly [number, number] | undefined,
  charLimit: number,
): Rendered {
  if (!isUtf8(data)) return { content: msg.notUtf8(path), isError: true };
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const n = countByteLines(bytes);
  if (n > MAX_LINES) return { content: msg.tooManyLines(path), isError: true };

  let from = 1;
  let to = n;
  if (range) {
    const [start, end] = range;
    if (start < 1 || start > n) return { content: msg.viewRangeStart(start, end, n), isError: true };
    if (end !== -1 && end < start) return { content: msg.viewRangeEnd(start, end), isError: true };
    from = start;
    to = end === -1 ? n : Math.min(end, n);
  }

  const header = msg.fileHeader(path);
  if (n === 0) return { content: header, isError: false };

  // Whole lines within the budget; the first requested line is always shown so paging can progress.
  const shown: string[] = [];
  let used = 0;
  let last = from - 1;
  let offset = offsetOfLine(bytes, from);
  for (let i = from; i <= to; i++) {
    const newline = bytes.indexOf(NEWLINE, offset);
    const end = newline === -1 ? bytes.length : newline;
    const numbered = numberLine(i, bytes.toString("utf8", offset, end));
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

/**
 * Lines by the model of SPEC §1, counted on UTF-8 bytes. A plain loop: one native `indexOf` call per
 * newline costs far more than looking at each byte when lines are short (999,999 empty lines).
 */
const countByteLines = (bytes: Buffer): number => {
  if (bytes.length === 0) return 0;
  let n = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === NEWLINE) n++;
  return bytes[bytes.length - 1] === NEWLINE ? n : n + 1;
};

/** The byte offset where 1-based line `line` starts. */
const offsetOfLine = (bytes: Buffer, line: number): number => {
  let seen = 1;
  for (let i = 0; i < bytes.length && seen < line; i++) {
    if (bytes[i] === NEWLINE && ++seen === line) return i + 1;
  }
  return 0;
};
