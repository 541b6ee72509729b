/** The line model of SPEC §1: `\n` separates lines, and a trailing `\n` ends the last one. */

/** The lines of a text: `"a\nb\n"` and `"a\nb"` → `["a", "b"]`; `""` → `[]`. */
export const splitLines = (text: string): string[] => {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
};

export const NEWLINE = 10;

/** Number of `\n` in `text[from..to)`; a plain loop beats one `indexOf` call per newline on short lines. */
export const countNewlines = (text: string, from = 0, to = text.length): number => {
  let n = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === NEWLINE) n++;
  return n;
};

/** The number of lines, without materialising them. */
export const countLines = (text: string): number => {
  if (text === "") return 0;
  const n = countNewlines(text);
  return text.endsWith("\n") ? n : n + 1;
};

/** Where 0-based line `k` starts (`text.length` when the text has no more lines). */
export const offsetOfLine = (text: string, k: number): number => {
  if (k === 0) return 0;
  let seen = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === NEWLINE && ++seen === k) return i + 1;
  }
  return text.length;
};

/** The 1-based line on which the character at `index` stands. */
export const lineAt = (text: string, index: number): number => {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
};

/** One numbered line as view shows it: the number right-aligned in 6 characters, a TAB, the line. */
export const numberLine = (lineNumber: number, line: string): string =>
  `${String(lineNumber).padStart(6, " ")}\t${line}`;

/** `lines` numbered from `first` on, as view shows them, joined by `\n`. */
export const numberLines = (lines: readonly string[], first: number): string =>
  lines.map((line, i) => numberLine(first + i, line)).join("\n");

/** Where a window of lines lies in a file's bytes, and how many lines the file has. */
export interface LineScan {
  /** Lines in the file, by the model above. */
  lines: number;
  /** Byte offset where line `from` starts; the file's length when the file has fewer lines. */
  start: number;
  /** Byte offset where line `through` ends (its `\n`, or the end of the file). */
  end: number;
}

const NEWLINES = 0x0a0a0a0a;
const LOW7 = 0x7f7f7f7f;
const HIGH = 0x80808080;

/**
 * One pass over UTF-8 bytes that counts the lines and finds where lines `from` to `through` (1-based)
 * lie. A `\n` byte never occurs inside a multi-byte UTF-8 sequence, so the offsets are character
 * boundaries. Four bytes are tested at a time: newline-free words, the bulk of a text, cost one test.
 */
export const scanLines = (bytes: Uint8Array, from: number, through: number): LineScan => {
  const length = bytes.length;
  // The newlines after which the window starts and at which it ends.
  const startAfter = from - 1;
  let start = startAfter <= 0 ? 0 : -1;
  let end = -1;
  let seen = 0;
  const mark = (i: number) => {
    seen++;
    if (seen === startAfter) start = i + 1;
    if (seen === through) end = i;
  };
  let i = 0;
  const head = Math.min(length, (4 - (bytes.byteOffset & 3)) & 3);
  for (; i < head; i++) if (bytes[i] === NEWLINE) mark(i);
  const words = (length - i) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let w = 0; w < words; w++) {
      const x = view[w]! ^ NEWLINES;
      // High bit of each byte set where the byte was `\n` (the classic zero-byte test, exact form).
      const zero = ~(((x & LOW7) + LOW7) | x | LOW7) & HIGH;
      if (zero === 0) continue;
      const count = Math.imul(zero >>> 7, 0x01010101) >>> 24;
      const base = i + w * 4;
      if ((seen < startAfter && seen + count >= startAfter) || (seen < through && seen + count >= through)) {
        for (let b = base; b < base + 4; b++) if (bytes[b] === NEWLINE) mark(b);
      } else seen += count;
    }
    i += words * 4;
  }
  for (; i < length; i++) if (bytes[i] === NEWLINE) mark(i);
  const lines = length === 0 ? 0 : bytes[length - 1] === NEWLINE ? seen : seen + 1;
  return { lines, start: start === -1 ? length : start, end: end === -1 ? length : end };
};

/**
 * The line count of `text` (the model above) and the text of its lines `from` to `through` (1-based,
 * inclusive; `through` may pass the end), without the `\n` that ends the last: what a store that holds a
 * file as a string answers `readLines` with, in one pass of `indexOf` and no copy but the window.
 *
 * @example
 * ```ts
 * linesOfText("a\nb\nc\n", 2, 9) // { lines: 3, text: "b\nc" }
 * ```
 */
export const linesOfText = (text: string, from: number, through: number): { lines: number; text: string } => {
  const endsWithNewline = text.endsWith("\n");
  let seen = 0;
  let start = from <= 1 ? 0 : -1;
  let end = -1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    seen++;
    if (seen === from - 1) start = i + 1;
    if (seen === through) end = i;
  }
  const lines = text === "" ? 0 : endsWithNewline ? seen : seen + 1;
  if (start === -1 || start >= text.length) return { lines, text: "" };
  if (end === -1) end = endsWithNewline ? text.length - 1 : text.length;
  return { lines, text: text.slice(start, end) };
};
