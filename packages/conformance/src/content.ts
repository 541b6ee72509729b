/**
 * File contents as golden transcripts describe them: plain UTF-8 text, raw bytes in base64, or a
 * compact generator for contents too large to spell out.
 */
export type ContentSpec =
  | string
  | { readonly base64: string }
  | { readonly repeat: string; readonly count: number }
  | {
      readonly lines: number;
      readonly prefix?: string;
      readonly newline?: string;
      readonly trailingNewline?: boolean;
    }
  | { readonly concat: readonly ContentSpec[] };

const encoder = new TextEncoder();

/**
 * The exact bytes a {@link ContentSpec} stands for.
 *
 * - `"text"`: the UTF-8 encoding of the text.
 * - `{ base64 }`: the decoded bytes (for files that are not UTF-8).
 * - `{ repeat, count }`: `repeat` written `count` times.
 * - `{ lines, prefix = "line ", newline = "\n", trailingNewline = true }`: `prefix1`, `prefix2`, ...
 *   `prefix{lines}` joined by `newline`, followed by one more `newline` when `trailingNewline`.
 * - `{ concat }`: the parts one after another.
 *
 * @example
 * ```ts
 * materialize({ lines: 2 }); // bytes of "line 1\nline 2\n"
 * ```
 */
export function materialize(spec: ContentSpec): Uint8Array {
  if (typeof spec === "string") return encoder.encode(spec);
  if ("base64" in spec) return new Uint8Array(Buffer.from(spec.base64, "base64"));
  if ("repeat" in spec) return encoder.encode(spec.repeat.repeat(spec.count));
  if ("lines" in spec) {
    const newline = spec.newline ?? "\n";
    const prefix = spec.prefix ?? "line ";
    const parts: string[] = [];
    for (let i = 1; i <= spec.lines; i++) parts.push(`${prefix}${i}`);
    const body = parts.join(newline);
    return encoder.encode(spec.lines > 0 && (spec.trailingNewline ?? true) ? body + newline : body);
  }
  const chunks = spec.concat.map(materialize);
  const out = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
