/**
 * The path validator of SPEC §2. Every path argument goes through it before any storage call.
 */
import { capEcho } from "./echo.js";
import { msg } from "./messages.js";
import type { PathLimits } from "./store.js";
import { hasLoneSurrogate, utf8Length } from "./text.js";
import { ROOT } from "./tree.js";

export type PathCheck = { ok: true; path: string } | { ok: false; error: string };

export interface ValidateOptions {
  /** The parameter's name, for the "must be a string" message. */
  param?: string;
  /** Further names the store keeps for its own bookkeeping; names starting with `.mem-` always are. */
  isReservedName?: ((name: string) => boolean) | undefined;
  /** The store's own limits (`MemoryStore.pathLimits`), checked after every other rule. */
  pathLimits?: PathLimits | undefined;
}

const MAX_PATH_BYTES = 1024;
const MAX_NAME_BYTES = 255;
const CONTROL = /[\u0000-\u001f\u007f]/;
const PERCENT_ENCODED = /%[0-9a-fA-F]{2}/;
/** Names every store reserves for the bookkeeping of stores and wrappers (SPEC §2). */
const RESERVED_PREFIX = ".mem-";
/**
 * A raw path longer than this many UTF-16 code units is over 1024 bytes in any canonical form: every code
 * unit is at least one UTF-8 byte, and NFC composition shrinks UTF-8 at most threefold (Hangul L+V+T).
 */
const LONGEST_POSSIBLE_PATH = 4 * MAX_PATH_BYTES;
/** A segment longer than this cannot fold to `.` or `..`: NFKC never maps a code point to nothing. */
const LONGEST_DOT_SEGMENT = 8;

/**
 * The path as given, with control characters and lone surrogates shown as JSON `\uXXXX` escapes, cut
 * after {@link ECHO_LIMIT} code units.
 */
export const displayRaw = (raw: string): string => capEcho(raw, escapeControls);

const escapeControls = (raw: string): string => {
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
  if (segment.length > LONGEST_DOT_SEGMENT) return false;
  const folded = segment.normalize("NFKC");
  return folded === "." || folded === "..";
};

/**
 * The segment checks of SPEC §2 in one pass over `rest` (the part after `/memories/`, trailing slash
 * dropped), without splitting it: a dot segment wins over an empty one wherever each stands.
 */
const segmentProblem = (rest: string): string | null => {
  let empty = false;
  for (let start = 0; ; ) {
    const slash = rest.indexOf("/", start);
    const end = slash === -1 ? rest.length : slash;
    if (end === start) empty = true;
    else if (end - start <= LONGEST_DOT_SEGMENT && isDotSegment(rest.slice(start, end)))
      return msg.why.dotSegment;
    if (slash === -1) break;
    start = slash + 1;
  }
  return empty ? msg.why.emptySegment : null;
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
  // Every check up to the length limit reads the raw path once and copies nothing of its size.
  const isRoot = raw.length <= ROOT.length + 1;
  const restEnd = raw.endsWith("/") && !isRoot ? raw.length - 1 : raw.length;
  const rest = isRoot ? "" : raw.slice(ROOT.length + 1, restEnd);
  const segmentError = isRoot ? null : segmentProblem(rest);
  if (segmentError) return fail(segmentError);
  if (raw.includes("\\")) return fail(msg.why.backslash);
  if (PERCENT_ENCODED.test(raw)) return fail(msg.why.percent);
  if (CONTROL.test(raw) || hasLoneSurrogate(raw)) return fail(msg.why.control);
  if (raw.length > LONGEST_POSSIBLE_PATH) return fail(msg.why.pathTooLong);

  const rawSegments = isRoot ? [] : rest.split("/");
  const segments = rawSegments.map((s) => s.normalize("NFC"));
  const path = segments.length === 0 ? ROOT : `${ROOT}/${segments.join("/")}`;
  if (utf8Length(path) > MAX_PATH_BYTES) return fail(msg.why.pathTooLong);
  if (segments.some((s) => utf8Length(s) > MAX_NAME_BYTES)) return fail(msg.why.nameTooLong);
  const reserved = (s: string) => s.startsWith(RESERVED_PREFIX) || options.isReservedName?.(s) === true;
  if (segments.some(reserved)) return fail(msg.why.reserved);
  const limits = options.pathLimits;
  if (limits?.maxDepth !== undefined && segments.length > limits.maxDepth)
    return fail(msg.why.tooDeep(limits.maxDepth));
  if (limits?.refusesName && segments.some((s) => limits.refusesName?.(s) === true))
    return fail(msg.why.unstorable);
  return { ok: true, path };
}
