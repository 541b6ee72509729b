/**
 * The built-in detectors of SPEC §7 "Sensitive data". Every pattern runs in time linear in the text: a
 * match may only start where a token starts (a lookbehind refuses starts inside a run of token
 * characters), and after a literal prefix each pattern has at most one unbounded quantifier over a class
 * that the next required character is not in, so no start is tried more than once per run and no
 * quantifier backtracks further than the run it consumed.
 */

/** A match: `text.slice(start, end)` is the sensitive value. */
export interface SensitiveSpan {
  readonly start: number;
  readonly end: number;
}

/** A detector: a label for the refusal message and a finder of every match, in order of `start`. */
export interface Detector {
  readonly label: string;
  /** A pattern every match contains, tested first to skip the scan of texts that cannot match. */
  readonly hint?: RegExp;
  spans(text: string): Iterable<SensitiveSpan>;
}

/** The built-in detectors, by the name the `sensitive.detectors` option uses. */
export type BuiltinDetectorName =
  | "privateKey"
  | "awsAccessKey"
  | "apiKey"
  | "jwt"
  | "paymentCard"
  | "email"
  | "phone";

/**
 * No letter, digit, `+` or `-` before the start: keys inside longer runs (base64, base64url, hex,
 * words) never match. `/`, `_`, `@` and `:` do start a token: keys sit after them in paths and URLs
 * (`s3://bucket/AKIA…`, `https://ghp_…@github.com`) and in names (`GH_TOKEN_ghp_…`). Base64 has `/` but
 * no `_` or `-`, base64url has `_` but no `/`, and every prefix below holds one of `_`, `-` or a fixed
 * length with an end check, so letting `/` and `_` start a token finds no key inside either alphabet.
 */
const START = "(?<![A-Za-z0-9+-])";
/** No token character after a fixed-length key: it would be part of a longer run. */
const END = "(?![A-Za-z0-9+/_-])";
/** After an AWS key id a path segment or a name may go on (`AKIA…/notes.md`, `AKIA…_old`). */
const AWS_END = "(?![A-Za-z0-9+-])";

/** Every match of a global regex, each narrowed by `accept` (which may drop it by returning `null`). */
function* regexSpans(
  pattern: RegExp,
  text: string,
  accept: (match: string, start: number) => SensitiveSpan | null = (m, s) => ({
    start: s,
    end: s + m.length,
  }),
): Generator<SensitiveSpan> {
  const re = new RegExp(pattern.source, pattern.flags);
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0] === "") {
      re.lastIndex++;
      continue;
    }
    const span = accept(m[0], m.index);
    if (span) yield span;
  }
}

const PRIVATE_KEY_BEGIN = /-----BEGIN[A-Z0-9 ]{0,48} PRIVATE KEY(?: BLOCK)?-----/g;
const PRIVATE_KEY_END = /-----END[A-Z0-9 ]{0,48} PRIVATE KEY(?: BLOCK)?-----/g;

/**
 * A private key block from its BEGIN line to its END line, or to the end of the text when the END line
 * is missing (a truncated key is still a key). The END search resumes where it stopped, so many BEGIN
 * lines without an END cost one pass, not one pass each.
 */
function* privateKeySpans(text: string): Generator<SensitiveSpan> {
  const begin = new RegExp(PRIVATE_KEY_BEGIN.source, "g");
  const end = new RegExp(PRIVATE_KEY_END.source, "g");
  let endMatch: RegExpExecArray | null | undefined;
  for (let m = begin.exec(text); m !== null; m = begin.exec(text)) {
    const headerEnd = m.index + m[0].length;
    if (endMatch === undefined || (endMatch !== null && endMatch.index < headerEnd)) {
      end.lastIndex = headerEnd;
      endMatch = end.exec(text);
    }
    const stop = endMatch ? endMatch.index + endMatch[0].length : text.length;
    yield { start: m.index, end: stop };
    if (stop >= text.length) return;
    begin.lastIndex = stop;
  }
}

const AWS_ACCESS_KEY = new RegExp(`${START}(?:AKIA|ASIA)[A-Z0-9]{16}${AWS_END}`, "g");

const API_KEY = new RegExp(
  `${START}(?:${[
    // Anthropic: sk-ant-api03-…, sk-ant-admin01-…
    "sk-ant-[a-z]{2,12}[0-9]{2}-[A-Za-z0-9_-]{20,}",
    // OpenAI: project, service-account and admin keys, and the older sk-…T3BlbkFJ… form
    "sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
    "sk-[A-Za-z0-9]{20,}T3BlbkFJ[A-Za-z0-9]{20,}",
    // GitHub: classic tokens and fine-grained personal access tokens
    "gh[pousr]_[A-Za-z0-9]{36,}",
    "github_pat_[A-Za-z0-9_]{22,}",
    // Slack: tokens and incoming webhooks
    "xox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{8,}",
    "https://hooks\\.slack\\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,}",
    // Stripe: secret and restricted keys
    "[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
    // Google API keys are exactly 39 characters
    `AIza[A-Za-z0-9_-]{35}${END}`,
  ].join("|")})`,
  "g",
);

// A JWT's header is base64url, `_` included, so a start after `_` could lie inside a run of header
// characters and every such start would scan the run again. After `_` the header therefore stops at the
// next `_`: the JSON of a header gives `_` only after `?`, DEL or a byte above 127 (rare in a header).
const JWT_REST = "\\.ey[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{16,}";
const JWT = new RegExp(
  `(?:(?<![A-Za-z0-9+_-])eyJ[A-Za-z0-9_-]{8,}|(?<=_)eyJ[A-Za-z0-9-]{8,})${JWT_REST}`,
  "g",
);

/** The Luhn checksum of a digit string. */
export const luhnValid = (digits: string): boolean => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
};

/** Card networks: a prefix and the lengths its numbers have. */
const CARD_PREFIXES: readonly [RegExp, readonly number[]][] = [
  [/^4/, [13, 16, 19]], // Visa
  [/^(?:5[1-5]|222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)/, [16]], // Mastercard
  [/^3[47]/, [15]], // American Express
  [/^(?:6011|65|64[4-9]|62)/, [16, 17, 18, 19]], // Discover, UnionPay
  [/^35(?:2[89]|[3-8][0-9])/, [16, 17, 18, 19]], // JCB
  [/^3(?:0[0-5]|[689])/, [14, 15, 16, 17, 18, 19]], // Diners Club
];

const isCardNumber = (digits: string): boolean =>
  CARD_PREFIXES.some(([prefix, lengths]) => prefix.test(digits) && lengths.includes(digits.length)) &&
  luhnValid(digits);

// 13 to 19 digits, single spaces or dashes allowed between them; the iteration count is bounded.
const CARD_CANDIDATE = /(?<![0-9])[2-6](?:[ -]?[0-9]){12,18}(?![0-9])/g;

/** The longest card number at the start of a candidate, cut only between digit groups or at its end. */
const cardSpan = (candidate: string, start: number): SensitiveSpan | null => {
  for (let end = candidate.length; end > 0; end--) {
    const next = candidate[end];
    if (end < candidate.length && next !== " " && next !== "-") continue;
    const digits = candidate.slice(0, end).replace(/[ -]/g, "");
    if (digits.length < 13) return null;
    if (isCardNumber(digits)) return { start, end: start + end };
  }
  return null;
};

const EMAIL = new RegExp(
  "(?<![A-Za-z0-9._%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9][A-Za-z0-9-]{0,62}" +
    "(?:\\.[A-Za-z0-9-]{1,63})*\\.[A-Za-z]{2,24}(?![A-Za-z0-9-])",
  "g",
);

// A run of 7 to 15 digits with at most two separators between digits; checked in code below.
const PHONE_CANDIDATE = /(?<![A-Za-z0-9+])\+?\(?[0-9](?:[ .()-]{0,2}[0-9]){6,14}(?![0-9])/g;
const INTERNATIONAL = /^\+[1-9]/;
const NORTH_AMERICAN =
  /^(?:\+?1[ .-]?)?(?:\([2-9][0-9]{2}\) ?|[2-9][0-9]{2}[ .-]?)[2-9][0-9]{2}[ .-][0-9]{4}$/;

const phoneSpan = (candidate: string, start: number): SensitiveSpan | null => {
  const digits = candidate.replace(/[^0-9]/g, "").length;
  const international = INTERNATIONAL.test(candidate) && digits >= 8 && digits <= 15;
  return international || NORTH_AMERICAN.test(candidate) ? { start, end: start + candidate.length } : null;
};

export const BUILTIN_DETECTORS: Readonly<Record<BuiltinDetectorName, Detector>> = {
  privateKey: { label: "a private key", hint: /-----BEGIN/, spans: privateKeySpans },
  awsAccessKey: {
    label: "an AWS access key",
    hint: /A[KS]IA/,
    spans: (text) => regexSpans(AWS_ACCESS_KEY, text),
  },
  apiKey: {
    label: "an API key",
    hint: /sk-|gh[pousr]_|github_pat_|xox|hooks\.slack\.com|[sr]k_(?:live|test)_|AIza/,
    spans: (text) => regexSpans(API_KEY, text),
  },
  jwt: { label: "a JSON Web Token", hint: /eyJ/, spans: (text) => regexSpans(JWT, text) },
  paymentCard: {
    label: "a payment card number",
    spans: (text) => regexSpans(CARD_CANDIDATE, text, cardSpan),
  },
  email: { label: "an email address", hint: /@/, spans: (text) => regexSpans(EMAIL, text) },
  phone: { label: "a phone number", spans: (text) => regexSpans(PHONE_CANDIDATE, text, phoneSpan) },
};

/** On unless the application turns them off (SPEC §7). */
export const DEFAULT_ON: readonly BuiltinDetectorName[] = ["privateKey", "awsAccessKey", "apiKey", "jwt"];
/** Off unless the application turns them on: ordinary text can look like them. */
export const OPT_IN: readonly BuiltinDetectorName[] = ["paymentCard", "email", "phone"];
