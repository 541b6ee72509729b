/**
 * Where every line of one version of a UTF-8 file starts, so that any number of `view_range` windows of
 * it cost the window, not the file: what a store that keeps a file between reads (a cache checked against
 * the file's version) answers `readLines` with. Built over the file's bytes, or over its text for a store
 * that receives files as strings.
 */
import { NEWLINE, scanLines } from "./lines.js";
import type { LineWindow } from "./store.js";
import { decodeUtf8, isValidUtf8 } from "./text.js";

export class LineIndex {
  /** The file's size in bytes. */
  readonly size: number;
  /** Lines in the file, by SPEC §1's model. */
  readonly lines: number;
  readonly #source: Uint8Array | string;
  /** Offsets (in `#source`) of the file's `\n`s, in order. */
  readonly #offsets: Uint32Array;
  readonly #endsWithNewline: boolean;

  private constructor(source: Uint8Array | string, offsets: Uint32Array, size: number) {
    this.#source = source;
    this.#offsets = offsets;
    this.size = size;
    const length = source.length;
    this.#endsWithNewline =
      length > 0 &&
      (typeof source === "string" ? source.charCodeAt(length - 1) : source[length - 1]) === NEWLINE;
    this.lines = length === 0 ? 0 : this.#endsWithNewline ? offsets.length : offsets.length + 1;
  }

  /**
   * The index of `bytes` (kept, not copied: the caller must not change them), or `undefined` when they
   * are not valid UTF-8, whose view core renders itself. One pass over the bytes.
   *
   * @example
   * ```ts
   * const index = LineIndex.of(new TextEncoder().encode("a\nb\nc\n"))!;
   * index.window(2, 9) // { size: 6, lines: 3, text: "b\nc" }
   * ```
   */
  static of(bytes: Uint8Array): LineIndex | undefined {
    if (!isValidUtf8(bytes)) return undefined;
    return new LineIndex(bytes, newlinesOf(bytes), bytes.length);
  }

  /**
   * One window of `bytes` without an index (one pass, as a view of the whole file makes): for a file
   * that will not be kept; `undefined` when the bytes are not valid UTF-8.
   */
  static windowOf(bytes: Uint8Array, from: number, through: number): LineWindow | undefined {
    if (!isValidUtf8(bytes)) return undefined;
    const size = bytes.length;
    const { lines, start, end } = scanLines(bytes, from, through);
    if (from > lines || start >= size) return { size, lines, text: "" };
    const last = end === size && bytes[size - 1] === NEWLINE ? size - 1 : end;
    return { size, lines, text: decodeUtf8(bytes.subarray(start, last)) ?? "" };
  }

  /** The index of a file received as its text (`size`: its length in UTF-8 bytes). */
  static ofText(text: string, size: number): LineIndex {
    return new LineIndex(text, newlinesOf(text), size);
  }

  /** Bytes this index holds on to, at most: the file's (two per character of a text) and its offsets'. */
  get footprint(): number {
    const source = this.#source;
    return (typeof source === "string" ? source.length * 2 : source.byteLength) + this.#offsets.byteLength;
  }

  /**
   * Lines `from` to `through` (1-based, inclusive; `through` may pass the end), as `readLines` answers:
   * their text without the `\n` that ends the last, `""` when `from` is past the last line.
   */
  window(from: number, through: number): LineWindow {
    const { size, lines } = this;
    const source = this.#source;
    const offsets = this.#offsets;
    const result = (text: string): LineWindow => ({ size, lines, text });
    if (from > lines) return result("");
    const start = from <= 1 ? 0 : offsets[from - 2]! + 1;
    if (start >= source.length) return result("");
    const end =
      through >= 1 && through <= offsets.length
        ? offsets[through - 1]!
        : this.#endsWithNewline
          ? source.length - 1
          : source.length;
    return result(
      typeof source === "string" ? source.slice(start, end) : (decodeUtf8(source.subarray(start, end)) ?? ""),
    );
  }
}

/** The offsets of every `\n` in `source`. */
const newlinesOf = (source: Uint8Array | string): Uint32Array =>
  typeof source === "string" ? newlinesOfText(source) : newlinesOfBytes(source);

const newlinesOfText = (source: string): Uint32Array => {
  let offsets: Uint32Array = new Uint32Array(1024);
  let count = 0;
  for (let i = source.indexOf("\n"); i !== -1; i = source.indexOf("\n", i + 1)) {
    if (count === offsets.length) offsets = grown(offsets);
    offsets[count++] = i;
  }
  return offsets.slice(0, count);
};

const newlinesOfBytes = (source: Uint8Array): Uint32Array => {
  // Four bytes at a time, as `scanLines` does: newline-free words, the bulk of a text, cost one test.
  let offsets: Uint32Array = new Uint32Array(Math.max(1024, source.length >>> 6));
  let count = 0;
  const length = source.length;
  let i = 0;
  const head = Math.min(length, (4 - (source.byteOffset & 3)) & 3);
  for (; i < head; i++) {
    if (source[i] !== NEWLINE) continue;
    if (count === offsets.length) offsets = grown(offsets);
    offsets[count++] = i;
  }
  const words = (length - i) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(source.buffer, source.byteOffset + i, words);
    for (let w = 0; w < words; w++) {
      const x = view[w]! ^ 0x0a0a0a0a;
      if ((~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f) & 0x80808080) === 0) continue;
      if (count + 4 > offsets.length) offsets = grown(offsets);
      const base = i + w * 4;
      for (let b = base; b < base + 4; b++) if (source[b] === NEWLINE) offsets[count++] = b;
    }
    i += words * 4;
  }
  for (; i < length; i++) {
    if (source[i] !== NEWLINE) continue;
    if (count === offsets.length) offsets = grown(offsets);
    offsets[count++] = i;
  }
  return offsets.slice(0, count);
};

/** `offsets` in an array twice as long. */
const grown = (offsets: Uint32Array): Uint32Array => {
  const larger = new Uint32Array(offsets.length * 2);
  larger.set(offsets);
  return larger;
};
