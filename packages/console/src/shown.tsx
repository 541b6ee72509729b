/**
 * Names and paths as the page shows them: bidirectional controls and other invisible format characters
 * are shown as a marked escape (`\u202E`), so that `invoice\u202Egpj.exe` cannot pass for `invoiceexe.jpg`.
 */
import type { JSX } from "preact";

// Format characters (Cf) that change or hide what is displayed, and the other invisible separators.
const INVISIBLE =
  /[\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB]/;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, "g");

const escapeOf = (char: string): string =>
  `\\u${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;

/** `text` with every invisible character written as its escape, for attributes and labels. */
export const plain = (text: string): string => text.replace(INVISIBLE_ALL, escapeOf);

/** `text` with every invisible character shown as a marked escape. */
export function Shown({ text }: { text: string }): JSX.Element {
  if (!INVISIBLE.test(text)) return <>{text}</>;
  const parts: (string | JSX.Element)[] = [];
  let last = 0;
  for (const match of text.matchAll(INVISIBLE_ALL)) {
    const at = match.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    parts.push(
      <span key={at} class="invisible" title="an invisible character">
        {escapeOf(match[0])}
      </span>,
    );
    last = at + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
}
