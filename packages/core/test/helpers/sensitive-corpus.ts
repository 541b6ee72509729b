/**
 * Fake secrets in their real formats, assembled at run time from pieces so that no secret scanner
 * mistakes this repository for a leak. None of them is or was ever a working credential.
 */

/** A deterministic filler of `n` characters from `alphabet`. */
export const filler = (
  n: number,
  alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
): string => {
  let out = "";
  let seed = 7;
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out += alphabet[seed % alphabet.length];
  }
  return out;
};

const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const dash = "-----";

const pem = (kind: string) =>
  `${dash}BEGIN ${kind}${dash}\n${filler(64, b64)}\n${filler(64, b64)}\n${filler(20, b64)}==\n${dash}END ${kind}${dash}`;

/** Each fake secret with the label the refusal names and the detector that finds it. */
export const TRUE_POSITIVES: readonly { name: string; secret: string; label: string; detector: string }[] = [
  { name: "RSA private key", secret: pem("RSA PRIVATE KEY"), label: "a private key", detector: "privateKey" },
  { name: "PKCS#8 private key", secret: pem("PRIVATE KEY"), label: "a private key", detector: "privateKey" },
  {
    name: "OpenSSH private key",
    secret: pem("OPENSSH PRIVATE KEY"),
    label: "a private key",
    detector: "privateKey",
  },
  { name: "EC private key", secret: pem("EC PRIVATE KEY"), label: "a private key", detector: "privateKey" },
  {
    name: "encrypted private key",
    secret: pem("ENCRYPTED PRIVATE KEY"),
    label: "a private key",
    detector: "privateKey",
  },
  {
    name: "PGP private key",
    secret: pem("PGP PRIVATE KEY BLOCK"),
    label: "a private key",
    detector: "privateKey",
  },
  {
    name: "AWS access key id",
    secret: `AK${"IA"}${filler(16, upper)}`,
    label: "an AWS access key",
    detector: "awsAccessKey",
  },
  {
    name: "AWS temporary key id",
    secret: `AS${"IA"}${filler(16, upper)}`,
    label: "an AWS access key",
    detector: "awsAccessKey",
  },
  {
    name: "Anthropic API key",
    secret: `sk-${"ant"}-api03-${filler(93, `${b64.slice(0, 62)}_-`)}AA`,
    label: "an API key",
    detector: "apiKey",
  },
  {
    name: "Anthropic admin key",
    secret: `sk-${"ant"}-admin01-${filler(93)}AA`,
    label: "an API key",
    detector: "apiKey",
  },
  {
    name: "OpenAI project key",
    secret: `sk-${"proj"}-${filler(156, `${b64.slice(0, 62)}_-`)}`,
    label: "an API key",
    detector: "apiKey",
  },
  {
    name: "OpenAI legacy key",
    secret: `sk-${filler(20)}T3Blbk${"FJ"}${filler(20)}`,
    label: "an API key",
    detector: "apiKey",
  },
  { name: "GitHub classic token", secret: `gh${"p"}_${filler(36)}`, label: "an API key", detector: "apiKey" },
  { name: "GitHub OAuth token", secret: `gh${"o"}_${filler(36)}`, label: "an API key", detector: "apiKey" },
  {
    name: "GitHub fine-grained token",
    secret: `github${"_pat"}_${filler(22)}_${filler(59)}`,
    label: "an API key",
    detector: "apiKey",
  },
  {
    name: "Slack bot token",
    secret: `xo${"xb"}-${filler(12, "0123456789")}-${filler(13, "0123456789")}-${filler(24)}`,
    label: "an API key",
    detector: "apiKey",
  },
  {
    name: "Slack webhook",
    secret: `https://hooks.${"slack"}.com/services/T${filler(10, upper)}/B${filler(10, upper)}/${filler(24)}`,
    label: "an API key",
    detector: "apiKey",
  },
  {
    name: "Stripe secret key",
    secret: `sk${"_live"}_${filler(24)}`,
    label: "an API key",
    detector: "apiKey",
  },
  {
    name: "Stripe restricted key",
    secret: `rk${"_test"}_${filler(24)}`,
    label: "an API key",
    detector: "apiKey",
  },
  {
    name: "Google API key",
    secret: `AI${"za"}Sy${filler(33, `${b64.slice(0, 62)}_-`)}`,
    label: "an API key",
    detector: "apiKey",
  },
  {
    name: "JSON Web Token",
    secret: `ey${"J"}hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.ey${"J"}zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ.${filler(43, `${b64.slice(0, 62)}_-`)}`,
    label: "a JSON Web Token",
    detector: "jwt",
  },
  {
    name: "Visa, spaced",
    secret: ["4111", "1111", "1111", "1111"].join(" "),
    label: "a payment card number",
    detector: "paymentCard",
  },
  {
    name: "Mastercard, dashed",
    secret: ["5500", "0000", "0000", "0004"].join("-"),
    label: "a payment card number",
    detector: "paymentCard",
  },
  {
    name: "Mastercard 2-series",
    secret: ["2221", "0000", "0000", "0009"].join(""),
    label: "a payment card number",
    detector: "paymentCard",
  },
  {
    name: "American Express",
    secret: ["3782", "822463", "10005"].join(" "),
    label: "a payment card number",
    detector: "paymentCard",
  },
  {
    name: "Discover",
    secret: ["6011", "1111", "1111", "1117"].join(""),
    label: "a payment card number",
    detector: "paymentCard",
  },
  {
    name: "e-mail address",
    secret: `jane.doe+memo${"@"}mail.example.co.uk`,
    label: "an email address",
    detector: "email",
  },
  {
    name: "international phone",
    secret: `+44 20 ${"7946"} 0958`,
    label: "a phone number",
    detector: "phone",
  },
  { name: "North American phone", secret: `(555) ${"234"}-5678`, label: "a phone number", detector: "phone" },
  { name: "E.164 phone", secret: `+1-202-${"555"}-0143`, label: "a phone number", detector: "phone" },
];

const tinyPng = Buffer.from(
  Array.from({ length: 6000 }, (_, i) => (i * 7919 + (i >> 3) * 31) % 256),
).toString("base64");

/** Text that must pass every detector, the opt-in ones included. */
export const LOOK_ALIKES: readonly { name: string; text: string }[] = [
  {
    name: "UUIDs",
    text: "id 123e4567-e89b-12d3-a456-426614174000 and 550e8400-e29b-41d4-a716-446655440000\n",
  },
  { name: "git SHAs", text: "fixed in e83c5163316f89bfbde7d9ab23ca2e25604af290 (short: e83c516)\n" },
  { name: "SHA-256", text: `sha256:${filler(64, "0123456789abcdef")}\n` },
  { name: "base64 image", text: `![chart](data:image/png;base64,${tinyPng})\n` },
  { name: "base64 in a code block", text: `\`\`\`\n${filler(4000, b64)}\n\`\`\`\n` },
  {
    name: "ordinary numbers",
    text: [
      "Order 1234567890123456 shipped on 2026-11-23 at 12:30.",
      "Invoice total: $1,234,567.89; 42 items; build 20261123.4.",
      "Timestamp 1732406400000, port 8080, IP 192.168.100.200, version 1.2.3.",
      "Not a card (bad checksum): 4111 1111 1111 1112.",
      "Room 4521, floor 12, extension 555.",
      "ISBN 978-3-16-148410-0",
    ].join("\n"),
  },
  {
    name: "prose about secrets",
    text: [
      "Keys starting with sk- are secret keys; AWS ids start with AKIA and Google's with AIza.",
      'A JWT starts with eyJ because that is base64 for {".',
      "Never paste a BEGIN PRIVATE KEY block; PEM headers have five dashes on each side.",
      "GitHub tokens look like ghp_ followed by 36 characters; Slack's like xoxb-.",
      "Write to the team at support (at) example (dot) com.",
    ].join("\n"),
  },
  {
    name: "identifiers",
    text: "const AKIA_PREFIX = 'x'; function sk_live_mode() {}; let eyJ = 1;\nuser@localhost\n",
  },
  {
    name: "markdown notes",
    text: "# Project\n\n- [x] migrate the database\n- [ ] call Jane about the 3 open issues\n",
  },
];

const aws = `AK${"IA"}${filler(16, upper)}`;
const github = `gh${"p"}_${filler(36)}`;
const jwt = TRUE_POSITIVES.find((t) => t.detector === "jwt")!.secret;

/** Secrets after `/`, `_`, `@` and `:`, where paths, URLs and names put them: each must be found. */
export const SECRETS_IN_CONTEXT: readonly { name: string; text: string; label: string }[] = [
  { name: "an AWS key in an S3 URL", text: `copy to s3://bucket/${aws}\n`, label: "an AWS access key" },
  {
    name: "an AWS key as a path segment",
    text: `see s3://bucket/${aws}/notes.md\n`,
    label: "an AWS access key",
  },
  { name: "an AWS key after an underscore", text: `AWS_KEY_${aws}\n`, label: "an AWS access key" },
  {
    name: "a GitHub token as a URL's user",
    text: `git clone https://${github}@github.com/org/repo.git\n`,
    label: "an API key",
  },
  { name: "a GitHub token after an underscore", text: `export GH_TOKEN_${github}\n`, label: "an API key" },
  { name: "a GitHub token after a colon", text: `token:${github}\n`, label: "an API key" },
  { name: "a GitHub token after a slash", text: `path /tokens/${github}\n`, label: "an API key" },
  {
    name: "a Stripe key after an underscore",
    text: `STRIPE_${"sk"}_live_${filler(24)}\n`,
    label: "an API key",
  },
  { name: "a JWT in a URL", text: `https://example.com/auth/${jwt}\n`, label: "a JSON Web Token" },
  { name: "a JWT after an underscore", text: `SESSION_${jwt}\n`, label: "a JSON Web Token" },
];

/** Paths that hold a secret, with the refusal's path (the secret replaced) and label. */
export const SECRET_PATHS: readonly { path: string; shown: string; label: string }[] = [
  { path: `/memories/${aws}.md`, shown: "/memories/[REDACTED].md", label: "an AWS access key" },
  { path: `/memories/${github}`, shown: "/memories/[REDACTED]", label: "an API key" },
  {
    path: `/memories/keys/${aws}/notes.md`,
    shown: "/memories/keys/[REDACTED]/notes.md",
    label: "an AWS access key",
  },
  { path: `/memories/GH_TOKEN_${github}.md`, shown: "/memories/GH_TOKEN_[REDACTED].md", label: "an API key" },
];

/** Near misses after `/`, `_`, `@` and `:` that must pass every detector. */
export const CONTEXT_LOOK_ALIKES: readonly { name: string; text: string }[] = [
  {
    name: "paths and URLs without keys",
    text: [
      "s3://bucket/AKIA-notes/2026.md and s3://bucket/ASIA_trip/photos",
      "https://github.com/org/repo/blob/main/ghp_notes.md",
      "/memories/ghp_short_token.md and /memories/aws/AKIA_PREFIX.md",
      "https://example.com:8443/sk_live_mode and http://host:eyJ/docs",
    ].join("\n"),
  },
  {
    name: "snake_case names",
    text: "load_ghp_token_from_env(); AWS_AKIA_PREFIX_LENGTH = 4; MY_SK_LIVE_FLAG; session_eyJ_header\n",
  },
  { name: "standard base64 with slashes", text: `${filler(2000, b64)}/${filler(2000, b64)}\n` },
  {
    name: "base64url with underscores",
    text: `${filler(2000, `${b64.slice(0, 62)}_-`)}_${filler(2000, `${b64.slice(0, 62)}_-`)}\n`,
  },
  {
    name: "AWS-like runs inside longer runs",
    text: `prefix/${aws}Z and x_${aws}a and ${aws.toLowerCase()}/x\n`,
  },
];
