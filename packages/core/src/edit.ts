/** The pure text transforms behind str_replace and insert. */
import { countLines, lineAt, numberLines, splitLines } from "./lines.js";
import { msg } from "./messages.js";

/** `changed` is the range of the new text that the edit wrote, when the reply shows it (str_replace). */
export type EditOutcome =
  | { ok: true; text: string; reply: string; changed?: { start: number; end: number } }
  | { ok: false; error: string };

const SNIPPET_CONTEXT = 4;

/** Start indexes of every occurrence of `needle`, overlapping ones included (`aa` occurs twice in `aaa`). */
export const occurrences = (haystack: string, needle: string): number[] => {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) found.push(i);
  return found;
};

/**
 * Replaces the single occurrence of `oldStr` literally (no `$&` patterns) and builds the snippet reply.
 *
 * @example
 * ```ts
 * strReplace("/memories/a", "x = 1\n", "1", "2") // { ok: true, text: "x = 2\n", reply: "The memory file ..." }
 * ```
 */
export function strReplace(path: string, text: string, oldStr: string, newStr: string): EditOutcome {
  const found = occurrences(text, oldStr);
  if (found.length === 0) return { ok: false, error: msg.noOccurrence(oldStr, path) };
  if (found.length > 1) {
    const lines = [...new Set(found.map((i) => lineAt(text, i)))];
    return { ok: false, error: msg.multipleOccurrences(oldStr, lines) };
  }
  const at = found[0]!;
  const next = text.slice(0, at) + newStr + text.slice(at + oldStr.length);
  const changed = { start: at, end: at + newStr.length };
  return { ok: true, text: next, reply: replaceReply(next, changed.start, changed.end), changed };
}

/**
 * The str_replace success reply: the snippet of `text` from 4 lines before the line where `start` stands
 * to 4 lines after the one holding `end - 1` (the line of `start` when the range is empty).
 */
export function replaceReply(text: string, start: number, end: number): string {
  const first = lineAt(text, start);
  const last = end === start ? first : lineAt(text, end - 1);
  const lines = splitLines(text);
  const from = Math.max(1, first - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, last + SNIPPET_CONTEXT);
  const snippet = from <= to ? `\n${numberLines(lines, from, to)}` : "";
  return msg.replaced() + snippet;
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
  const lines = splitLines(text);
  const body = insertText.endsWith("\n") ? insertText.slice(0, -1) : insertText;
  const merged = lines.slice(0, line).concat(body.split("\n"), lines.slice(line));
  const trailing = text.endsWith("\n") || text === "" || (line === n && insertText.endsWith("\n"));
  return { ok: true, text: merged.join("\n") + (trailing ? "\n" : ""), reply: msg.inserted(path) };
}
