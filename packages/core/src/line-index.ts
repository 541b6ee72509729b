/**
 * Where every line of one version of a UTF-8 file starts, so that any number of `view_range` windows of
 * it cost the window, not the file: what a store that keeps a file's bytes between reads (a cache checked
 * against the file's version) answers `readLines` with.
 */
import { NEWLINE } from "./lines.js";
import type { LineWindow } from "./store.js";
import { decodeUtf8, isValidUtf8 } from "./text.js";

export class LineIndex {
  /** The file's size in bytes. */
  readonly size: number;
  /** Lines in the file, by SPEC §1's model. */
  readonly lines: number;
  readonly #bytes: Uint8Array;
  /** Offsets of the file's `\n` bytes, in order; the first `#newlines` entries are used. */
  readonly #offsets: Uint32Array;
  readonly #newlines: number;

  private constructor(bytes: Uint8Array, offsets: Uint32Array, newlines: number) {
    this.#bytes = bytes;
    this.#offsets = offsets;
    this.#newlines = newlines;
    this.size = bytes.length;
    const size = bytes.length;
    this.lines = size === 0 ? 0 : bytes[size - 1] === NEWLINE ? newlines : newlines + 1;
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
    let offsets = new Uint32Array(1024);
    let count = 0;
    for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) {
      if (count === offsets.length) {
        const grown = new Uint32Array(offsets.length * 2);
        grown.set(offsets);
        offsets = grown;
      }
      offsets[count++] = i;
    }
    return new LineIndex(bytes, offsets.slice(0, count), count);
  }

  /** Bytes this index holds on to: the file's and its offsets'. */
  get footprint(): number {
    return this.#bytes.byteLength + this.#offsets.byteLength;
  }

  /**
   * Lines `from` to `through` (1-based, inclusive; `through` may pass the end), as `readLines` answers:
   * their text without the `\n` that ends the last, `""` when `from` is past the last line.
   */
  window(from: number, through: number): LineWindow {
    const { size, lines } = this;
    const result = (text: string): LineWindow => ({ size, lines, text });
    if (from > lines) return result("");
    const start = from <= 1 ? 0 : this.#offsets[from - 2]! + 1;
    if (start >= size) return result("");
    const end =
      through >= 1 && through <= this.#newlines
        ? this.#offsets[through - 1]!
        : this.#bytes[size - 1] === NEWLINE
          ? size - 1
          : size;
    return result(decodeUtf8(this.#bytes.subarray(start, end)) ?? "");
  }
}
