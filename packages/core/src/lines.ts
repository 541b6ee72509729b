/** The line model of SPEC §1: `\n` separates lines, and a trailing `\n` ends the last one. */

/** The lines of a text: `"a\nb\n"` and `"a\nb"` → `["a", "b"]`; `""` → `[]`. */
export const splitLines = (text: string): string[] => {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
};

const NEWLINE = 10;

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
