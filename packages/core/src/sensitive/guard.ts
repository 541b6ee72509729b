/** The sensitive-data guard of SPEC §7: option handling, the scan for a refusal, and redaction. */
import { type EditOutcome, replaceReply } from "../edit.js";
import { lineAt } from "../lines.js";
import { msg } from "../messages.js";
import {
  BUILTIN_DETECTORS,
  type BuiltinDetectorName,
  DEFAULT_ON,
  type Detector,
  OPT_IN,
  type SensitiveSpan,
} from "./detectors.js";

/**
 * A detector of the application's own. `label` completes "line {n} looks like {label}" (e.g.
 * `"an internal ticket id"`). `test` is a regular expression (each match counts; write it so that it
 * cannot backtrack catastrophically, since it runs on every write) or a function returning the matches.
 */
export interface SensitiveDetector {
  readonly label: string;
  readonly test: RegExp | ((text: string) => Iterable<SensitiveSpan>);
}

/**
 * Options of the sensitive-data guard (SPEC §7). The guard is on by default with the detectors
 * `privateKey`, `awsAccessKey`, `apiKey` and `jwt`; `false` turns it off.
 *
 * @example
 * ```ts
 * await executeCommand(store, input, {
 *   sensitive: {
 *     mode: "redact",
 *     detectors: { jwt: false, email: true },
 *     custom: [{ label: "an internal ticket id", test: /\bSEC-[0-9]{6}\b/g }],
 *   },
 * });
 * ```
 */
export interface SensitiveOptions {
  /** `refuse` (default): the write is refused. `redact`: each match is replaced by `[REDACTED]`. */
  readonly mode?: "refuse" | "redact";
  /** Turns built-in detectors on (`paymentCard`, `email`, `phone` are off by default) or off. */
  readonly detectors?: Readonly<Partial<Record<BuiltinDetectorName, boolean>>>;
  /** The application's own detectors, run after the built-in ones. */
  readonly custom?: readonly SensitiveDetector[];
}

/** A resolved guard: the detectors in order, and the mode. */
export interface Guard {
  readonly mode: "refuse" | "redact";
  readonly detectors: readonly Detector[];
  /** When every detector has a hint: one pattern of all hints, so that most texts cost one quick pass. */
  readonly hint: RegExp | null;
}

const withHint = (mode: Guard["mode"], detectors: readonly Detector[]): Guard => {
  const hints = detectors.map((d) => d.hint);
  const all = hints.every((h) => h !== undefined);
  return { mode, detectors, hint: all ? new RegExp(hints.map((h) => h!.source).join("|")) : null };
};

/** What the guard decided about a text: refused (with the message), or allowed, possibly redacted. */
export type GuardVerdict =
  | { readonly ok: false; readonly error: string }
  | { readonly ok: true; readonly text: string; readonly redactions: readonly SensitiveSpan[] };

const DEFAULT_GUARD: Guard = withHint(
  "refuse",
  DEFAULT_ON.map((name) => BUILTIN_DETECTORS[name]),
);

const resolved = new WeakMap<SensitiveOptions, Guard>();

const customDetector = (detector: SensitiveDetector, index: number): Detector => {
  const where = `sensitive.custom[${index}]`;
  if (typeof detector !== "object" || detector === null)
    throw new TypeError(`${where} must be { label, test }`);
  const { label, test } = detector;
  if (typeof label !== "string" || label === "")
    throw new TypeError(`${where}.label must be a non-empty string`);
  if (test instanceof RegExp) {
    const flags = test.flags.includes("g") ? test.flags : `${test.flags}g`;
    return {
      label,
      *spans(text) {
        const re = new RegExp(test.source, flags);
        for (let m = re.exec(text); m !== null; m = re.exec(text)) {
          if (m[0] === "") re.lastIndex++;
          else yield { start: m.index, end: m.index + m[0].length };
        }
      },
    };
  }
  if (typeof test !== "function") throw new TypeError(`${where}.test must be a RegExp or a function`);
  return { label, spans: test };
};

/**
 * The guard for an `executeCommand` options value; `null` when it is turned off. Throws `TypeError` for
 * options that are not as documented.
 */
export function resolveGuard(options: SensitiveOptions | false | undefined): Guard | null {
  if (options === undefined) return DEFAULT_GUARD;
  if (options === false) return null;
  if (typeof options !== "object" || options === null) {
    throw new TypeError("sensitive must be false or an object { mode?, detectors?, custom? }");
  }
  const cached = resolved.get(options);
  if (cached) return cached;
  const { mode = "refuse", detectors = {}, custom = [] } = options;
  if (mode !== "refuse" && mode !== "redact")
    throw new TypeError('sensitive.mode must be "refuse" or "redact"');
  const names = Object.keys(BUILTIN_DETECTORS) as BuiltinDetectorName[];
  for (const [name, on] of Object.entries(detectors)) {
    if (!names.includes(name as BuiltinDetectorName)) {
      throw new TypeError(`sensitive.detectors.${name} is not a detector (allowed: ${names.join(", ")})`);
    }
    if (typeof on !== "boolean") throw new TypeError(`sensitive.detectors.${name} must be true or false`);
  }
  if (!Array.isArray(custom)) throw new TypeError("sensitive.custom must be an array of { label, test }");
  const enabled = [...DEFAULT_ON, ...OPT_IN].filter((name) => detectors[name] ?? DEFAULT_ON.includes(name));
  const guard = withHint(mode, [
    ...enabled.map((name) => BUILTIN_DETECTORS[name]),
    ...custom.map(customDetector),
  ]);
  resolved.set(options, guard);
  return guard;
}

/** The earliest match of any detector (ties go to the detector listed first). */
const firstMatch = (guard: Guard, text: string): { at: number; label: string } | null => {
  let best: { at: number; label: string } | null = null;
  for (const detector of guard.detectors) {
    for (const span of detector.spans(text)) {
      if (!best || span.start < best.at) best = { at: span.start, label: detector.label };
      break;
    }
  }
  return best;
};

/** Every match of every detector, sorted, overlapping and touching ones merged. */
const allMatches = (guard: Guard, text: string): SensitiveSpan[] => {
  const spans: SensitiveSpan[] = [];
  for (const detector of guard.detectors) for (const span of detector.spans(text)) spans.push(span);
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: { start: number; end: number }[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ start: span.start, end: span.end });
  }
  return merged;
};

/**
 * Checks the text a file would hold after a command. The refusal names the 1-based line of the first
 * match and the detector's label, never the matched text.
 *
 * @example
 * ```ts
 * guardText(resolveGuard(undefined)!, "/memories/a", "ok\nkey: AKIA" + "Z".repeat(16))
 * // { ok: false, error: "Error: Refused to write /memories/a: line 2 looks like an AWS access key. ..." }
 * ```
 */
export function guardText(guard: Guard, path: string, text: string): GuardVerdict {
  if (guard.hint && !guard.hint.test(text)) return { ok: true, text, redactions: [] };
  if (guard.mode === "refuse") {
    const found = firstMatch(guard, text);
    return found
      ? { ok: false, error: msg.sensitiveRefused(path, lineAt(text, found.at), found.label) }
      : { ok: true, text, redactions: [] };
  }
  const spans = allMatches(guard, text);
  if (spans.length === 0) return { ok: true, text, redactions: [] };
  let out = "";
  let from = 0;
  for (const span of spans) {
    out += text.slice(from, span.start) + msg.redacted();
    from = span.end;
  }
  return { ok: true, text: out + text.slice(from), redactions: spans };
}

/**
 * Checks a path a command would create (`create`'s `path`, `rename`'s `new_path`): the refusal, or `null`
 * when no detector matches. Every mode refuses, since a path cannot be redacted; the refusal shows the
 * path with each match replaced by `[REDACTED]`, never the matched text.
 *
 * @example
 * ```ts
 * guardPath(resolveGuard(undefined), "/memories/AKIA" + "Z".repeat(16) + ".md")
 * // "Error: Refused to write /memories/[REDACTED].md: the path looks like an AWS access key. ..."
 * ```
 */
export function guardPath(guard: Guard | null, path: string): string | null {
  if (!guard || (guard.hint && !guard.hint.test(path))) return null;
  const found = firstMatch(guard, path);
  if (!found) return null;
  let shown = "";
  let from = 0;
  for (const span of allMatches(guard, path)) {
    shown += path.slice(from, span.start) + msg.redacted();
    from = span.end;
  }
  return msg.sensitivePathRefused(shown + path.slice(from), found.label);
}

/** Where offset `at` of the original text lands in the redacted one; inside a span, on its replacement. */
export const mapOffset = (redactions: readonly SensitiveSpan[], at: number): number => {
  const width = msg.redacted().length;
  let shift = 0;
  for (const span of redactions) {
    if (at < span.start) break;
    if (at < span.end) return span.start + shift;
    shift += width - (span.end - span.start);
  }
  return at + shift;
};

type Written = { ok: true; text: string; reply: string; changed?: { start: number; end: number } };

/**
 * Runs the guard on what a successful command would write. In redact mode the text loses its matches,
 * the str_replace snippet is rendered again from the redacted text, and the note of SPEC §7 follows.
 */
export function guardOutcome(guard: Guard | null, path: string, outcome: Written): EditOutcome {
  if (!guard) return outcome;
  const verdict = guardText(guard, path, outcome.text);
  if (!verdict.ok) return verdict;
  const { redactions } = verdict;
  if (redactions.length === 0) return outcome;
  const { changed } = outcome;
  const reply = changed
    ? replaceReply(
        verdict.text,
        mapOffset(redactions, changed.start),
        changed.end > changed.start
          ? mapOffset(redactions, changed.end - 1) + 1
          : mapOffset(redactions, changed.start),
      )
    : outcome.reply;
  return { ok: true, text: verdict.text, reply: reply + msg.redactedNote(redactions.length) };
}
