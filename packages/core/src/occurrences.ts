/**
 * Finding `old_str` for str_replace in time linear in the file's size, whatever the number of
 * occurrences (SPEC §4): the line of each occurrence comes from the same pass, never from a scan back
 * to the start of the file.
 */

/** Lines listed in the "multiple occurrences" error before `, and {k} more`. */
export const LISTED_LINES = 20;

export type Occurrences =
  | { kind: "none" }
  | { kind: "one"; at: number }
  | {
      kind: "many";
      count: number;
      /** Ascending, without repeats: the first {@link LISTED_LINES} lines holding an occurrence. */
      lines: number[];
      /** Lines holding an occurrence beyond those in `lines`. */
      more: number;
      /** Characters compared by the scan, at most `2 × text.length + needle.length`. */
      steps: number;
    };

/** Knuth–Morris–Pratt failure table: `table[i]` is the longest proper border of `needle[0..i]`. */
const borders = (needle: string): Int32Array => {
  const table = new Int32Array(needle.length);
  let k = 0;
  for (let i = 1; i < needle.length; i++) {
    const c = needle.charCodeAt(i);
    while (k > 0 && needle.charCodeAt(k) !== c) k = table[k - 1]!;
    if (needle.charCodeAt(k) === c) k++;
    table[i] = k;
  }
  return table;
};

const NEWLINE = 10;

const newlinesIn = (text: string): number => {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
};

/**
 * Every occurrence of `needle` in `text`, overlapping ones included (`aa` occurs twice in `aaa`), as
 * str_replace needs them: none, the one index, or the lines holding them (capped).
 *
 * The common cases (none, one) cost two native searches. With two or more, one Knuth–Morris–Pratt pass
 * counts newlines as it goes, so 80,000 occurrences cost the same as two.
 *
 * @example
 * ```ts
 * findOccurrences("x\ny x\n", "x") // { kind: "many", count: 2, lines: [1, 2], more: 0, steps: 8 }
 * ```
 */
export const findOccurrences = (text: string, needle: string, listed = LISTED_LINES): Occurrences => {
  const first = text.indexOf(needle);
  if (first === -1) return { kind: "none" };
  if (text.indexOf(needle, first + 1) === -1) return { kind: "one", at: first };
  const table = borders(needle);
  const m = needle.length;
  // An occurrence ending at i starts on line 1 + (newlines up to i) - (newlines inside the needle).
  const inside = newlinesIn(needle);
  const lines: number[] = [];
  let count = 0;
  let distinct = 0;
  let lastLine = 0;
  let newlines = 0;
  let steps = m;
  let k = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    while (k > 0 && needle.charCodeAt(k) !== c) {
      k = table[k - 1]!;
      steps++;
    }
    steps++;
    if (needle.charCodeAt(k) === c) k++;
    if (c === NEWLINE) newlines++;
    if (k === m) {
      count++;
      const line = 1 + newlines - inside;
      if (line !== lastLine) {
        lastLine = line;
        distinct++;
        if (lines.length < listed) lines.push(line);
      }
      k = table[m - 1]!;
    }
  }
  return { kind: "many", count, lines, more: distinct - lines.length, steps };
};

/** Start indexes of every occurrence (overlapping ones included); for tests and small inputs. */
export const occurrenceIndexes = (text: string, needle: string): number[] => {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) found.push(i);
  return found;
};
