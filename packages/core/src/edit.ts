/** The pure text transforms behind str_replace and insert. */
import { capEcho } from "./echo.js";
import { countLines, countNewlines, numberLines, offsetOfLine } from "./lines.js";
import { msg } from "./messages.js";
import { findOccurrences, occurrenceIndexes } from "./occurrences.js";

/** `changed` is the range of the new text that the edit wrote, when the reply shows it (str_replace). */
export type EditOutcome =
  | { ok: true; text: string; reply: string; changed?: { start: number; end: number } }
  | { ok: false; error: string };

const SNIPPET_CONTEXT = 4;

/** Start indexes of every occurrence of `needle`, overlapping ones included (`aa` occurs twice in `aaa`). */
export const occurrences = occurrenceIndexes;

/**
 * The success snippet of str_replace: numbered lines of `next` from {@link SNIPPET_CONTEXT} lines before
 * the first line touched by the new text (`next[at..end)`) to as many after the last, clamped to the
 * file. Only that neighbourhood is split into lines.
 */
const snippetAround = (next: string, at: number, end: number): string => {
  if (next === "") return "";
  const firstLine = 1 + countNewlines(next, 0, at);
  // Start of the line holding `at`, then up to SNIPPET_CONTEXT lines further up.
  let start = at === 0 ? 0 : next.lastIndexOf("\n", at - 1) + 1;
  let from = firstLine;
  while (from > 1 && from > firstLine - SNIPPET_CONTEXT) {
    start = start < 2 ? 0 : next.lastIndexOf("\n", start - 2) + 1;
    from--;
  }
  // The newline ending the last touched line, then up to SNIPPET_CONTEXT lines further down.
  const lastTouched = end > at ? end - 1 : at;
  let stop = next.indexOf("\n", lastTouched);
  for (let k = 0; k < SNIPPET_CONTEXT && stop !== -1 && stop + 1 < next.length; k++) {
    stop = next.indexOf("\n", stop + 1);
  }
  let region = next.slice(start, stop === -1 ? next.length : stop);
  // A region running to the end of a file that ends with `\n` has no line after that newline.
  if (stop === -1 && region.endsWith("\n")) region = region.slice(0, -1);
  return `\n${numberLines(region.split("\n"), from)}`;
};

/**
 * Replaces the single occurrence of `oldStr` literally (no `$&` patterns) and builds the snippet reply.
 * Linear in the size of `text` whatever the number of occurrences.
 *
 * @example
 * ```ts
 * strReplace("/memories/a", "x = 1\n", "1", "2") // { ok: true, text: "x = 2\n", reply: "The memory file ..." }
 * ```
 */
export function strReplace(path: string, text: string, oldStr: string, newStr: string): EditOutcome {
  const found = findOccurrences(text, oldStr);
  if (found.kind === "none") return { ok: false, error: msg.noOccurrence(capEcho(oldStr), path) };
  if (found.kind === "many") {
    return { ok: false, error: msg.multipleOccurrences(capEcho(oldStr), found.lines, found.more) };
  }
  const { at } = found;
  const next = text.slice(0, at) + newStr + text.slice(at + oldStr.length);
  const changed = { start: at, end: at + newStr.length };
  return { ok: true, text: next, reply: replaceReply(next, changed.start, changed.end), changed };
}

/**
 * The str_replace success reply: the snippet of `text` from 4 lines before the line where `start` stands
 * to 4 lines after the one holding `end - 1` (the line of `start` when the range is empty), cut from the
 * neighbourhood of the change only.
 */
export function replaceReply(text: string, start: number, end: number): string {
  return msg.replaced() + snippetAround(text, start, end);
}

/**
 * Inserts `insertText` after line `line` (0 = at the top), by the line model of SPEC §1.
 *
 * @example
 * ```ts
 * insertLines("/memories/a", "A\nB\n", 1, "X") // { ok: true, text: "A\nX\nB\n", ... }
 * ```
 */
export function insertLines(path: string, text: string, line: number, insertText: string): EditOutcome {
  const n = countLines(text);
  if (line < 0 || line > n) return { ok: false, error: msg.insertLine(line, n) };
  const body = insertText.endsWith("\n") ? insertText.slice(0, -1) : insertText;
  // Spliced by offset rather than by splitting every line: L[0..k) + T + L[k..n), joined by `\n`.
  let next: string;
  if (line < n) {
    const at = offsetOfLine(text, line);
    next = `${text.slice(0, at)}${body}\n${text.slice(at)}`;
  } else if (n === 0) {
    next = `${body}\n`;
  } else {
    const trailing = text.endsWith("\n") || insertText.endsWith("\n");
    next = `${text.endsWith("\n") ? text.slice(0, -1) : text}\n${body}${trailing ? "\n" : ""}`;
  }
  return { ok: true, text: next, reply: msg.inserted(path) };
}
