/** The line model of SPEC §1: `\n` separates lines, and a trailing `\n` ends the last one. */

/** The lines of a text: `"a\nb\n"` and `"a\nb"` → `["a", "b"]`; `""` → `[]`. */
export const splitLines = (text: string): string[] => {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
};

/** The number of lines, without materialising them. */
export const countLines = (text: string): number => {
  if (text === "") return 0;
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n : n + 1;
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
