/**
 * The path validator of SPEC §2. Every path argument goes through it before any storage call.
 */
import { msg } from "./messages.js";
import { hasLoneSurrogate, utf8Length } from "./text.js";
import { ROOT } from "./tree.js";

export type PathCheck = { ok: true; path: string } | { ok: false; error: string };

export interface ValidateOptions {
  /** The parameter's name, for the "must be a string" message. */
  param?: string;
  /** Names the store keeps for its own bookkeeping. */
  isReservedName?: ((name: string) => boolean) | undefined;
}

const MAX_PATH_BYTES = 1024;
const MAX_NAME_BYTES = 255;
const CONTROL = /[\u0000-\u001f\u007f]/;
const PERCENT_ENCODED = /%[0-9a-fA-F]{2}/;

/** The path as given, with control characters and lone surrogates shown as JSON `\uXXXX` escapes. */
export const displayRaw = (raw: string): string => {
  let out = "";
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    const isHigh = c >= 0xd800 && c <= 0xdbff;
    const pairedHigh = isHigh && (raw.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (pairedHigh) {
      out += raw[i]! + raw[i + 1]!;
      i++;
    } else if (c < 0x20 || c === 0x7f || (c >= 0xd800 && c <= 0xdfff)) {
      out += `\\u${c.toString(16).padStart(4, "0")}`;
    } else {
      out += raw[i];
    }
  }
  return out;
};

const isDotSegment = (segment: string): boolean => {
  const folded = segment.normalize("NFKC");
  return folded === "." || folded === "..";
};

/**
 * Validates a raw path argument and returns its canonical form (NFC, no trailing slash).
 *
 * @example
 * ```ts
 * validatePath("/memories/notes/") // { ok: true, path: "/memories/notes" }
 * validatePath("/etc/passwd")      // { ok: false, error: "Error: The path /etc/passwd is outside ..." }
 * ```
 */
export function validatePath(raw: unknown, options: ValidateOptions = {}): PathCheck {
  if (typeof raw !== "string") return { ok: false, error: msg.notAString(options.param ?? "path") };
  const fail = (why: string): PathCheck => ({ ok: false, error: msg.notAllowed(displayRaw(raw), why) });

  if (raw !== ROOT && !raw.startsWith(`${ROOT}/`)) return { ok: false, error: msg.outside(displayRaw(raw)) };
  let rest = raw === ROOT ? "" : raw.slice(ROOT.length + 1);
  if (rest.endsWith("/")) rest = rest.slice(0, -1);
  const rawSegments = rest === "" && raw.length <= ROOT.length + 1 ? [] : rest.split("/");

  if (rawSegments.some(isDotSegment)) return fail(msg.why.dotSegment);
  if (rawSegments.some((s) => s === "")) return fail(msg.why.emptySegment);
  if (raw.includes("\\")) return fail(msg.why.backslash);
  if (PERCENT_ENCODED.test(raw)) return fail(msg.why.percent);
  if (CONTROL.test(raw) || hasLoneSurrogate(raw)) return fail(msg.why.control);

  const segments = rawSegments.map((s) => s.normalize("NFC"));
  const path = segments.length === 0 ? ROOT : `${ROOT}/${segments.join("/")}`;
  if (utf8Length(path) > MAX_PATH_BYTES) return fail(msg.why.pathTooLong);
  if (segments.some((s) => utf8Length(s) > MAX_NAME_BYTES)) return fail(msg.why.nameTooLong);
  if (options.isReservedName && segments.some((s) => options.isReservedName?.(s)))
    return fail(msg.why.reserved);
  return { ok: true, path };
}
