/**
 * The bytes of large files that `view_range` windows were read from, kept by a store between windows with
 * their line index and a token the store reads them at: a string that names one content of the file for
 * good (a version no later write or purge can give again). The next window asks the server only whether
 * the token still holds: a reply of a few bytes instead of the whole file, and never a stale window.
 */
import { LineIndex } from "./line-index.js";
import { linesOfText } from "./lines.js";
import type { LineWindow } from "./store.js";

/** Files smaller than this are read whole for each window: the round trip costs more than their bytes. */
export const LINE_CACHE_SMALLEST_BYTES = 64 * 1024;

/** The default size of a store's cache (`lineCacheBytes` in the stores that keep one). */
export const DEFAULT_LINE_CACHE_BYTES = 32 * 1024 * 1024;

export interface HeldLines {
  readonly token: string;
  readonly index: LineIndex;
}

/**
 * What a store's server answered for a file kept (or not) under a key: the token the file is at now, and
 * its content unless that token is the one kept. `content` is the file's bytes (kept as they are when they
 * have their memory to themselves, otherwise copied) or, for a store that receives files as strings, its
 * text, with `size` its length in UTF-8 bytes.
 */
export type FileAtToken =
  | { readonly token: string; readonly content: Uint8Array | null }
  | { readonly token: string; readonly content: string | null; readonly size: number };

/**
 * Least recently used entries go first once their footprints pass `budget` bytes.
 *
 * @example
 * ```ts
 * const cache = new LineCache(32 * 1024 * 1024);
 * const key = "/memories/a.md";
 * const held = cache.get(key);
 * // Ask the server for the file's token, and for its bytes unless that token is `held?.token`:
 * const found = { token: "7", content: new TextEncoder().encode("a\nb\n") };
 * cache.window(key, held, found, 2, 2) // { size: 4, lines: 2, text: "b" }
 * ```
 */
export class LineCache {
  readonly #entries = new Map<string, HeldLines>();
  #bytes = 0;

  constructor(readonly budget: number) {}

  /** Bytes held now (file bytes and line offsets). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether a file of `size` bytes would be kept (see `put`): else a store reads its window in one pass. */
  keeps(size: number): boolean {
    return size >= LINE_CACHE_SMALLEST_BYTES && size <= this.budget;
  }

  get(key: string): HeldLines | undefined {
    const held = this.#entries.get(key);
    if (held) {
      this.#entries.delete(key);
      this.#entries.set(key, held);
    }
    return held;
  }

  /**
   * `readLines`' answer from `found`, what the server said of the file once asked with `held`'s token
   * (`held`: `get(key)` before asking): `null` when the file is missing; the kept window when its token is
   * `held`'s; otherwise the window of the content found, whose lines are kept when large (see `keeps`);
   * `undefined` for bytes that are not UTF-8 (core then reads the file itself).
   */
  window(
    key: string,
    held: HeldLines | undefined,
    found: FileAtToken | null,
    from: number,
    through: number,
  ): LineWindow | null | undefined {
    if (!found) {
      this.delete(key);
      return null;
    }
    if (held && found.token === held.token) return held.index.window(from, through);
    const { content } = found;
    if (content === null) {
      this.delete(key);
      return undefined;
    }
    const text = typeof content === "string";
    const size = "size" in found ? found.size : content.length;
    if (!this.keeps(size)) {
      this.delete(key);
      return text
        ? { size, ...linesOfText(content, from, through) }
        : LineIndex.windowOf(content, from, through);
    }
    const index = text ? LineIndex.ofText(content, size) : LineIndex.of(ownMemory(content));
    if (!index) {
      this.delete(key);
      return undefined;
    }
    this.put(key, found.token, index);
    return index.window(from, through);
  }

  /** Keeps `index` under `key` when it is worth keeping and fits; forgets what was there otherwise. */
  put(key: string, token: string, index: LineIndex): void {
    this.delete(key);
    const size = index.footprint;
    if (token === "" || !this.keeps(index.size) || size > this.budget) return;
    this.#entries.set(key, { token, index });
    this.#bytes += size;
    for (const [oldest, held] of this.#entries) {
      if (this.#bytes <= this.budget) break;
      this.#entries.delete(oldest);
      this.#bytes -= held.index.footprint;
    }
  }

  delete(key: string): void {
    const held = this.#entries.get(key);
    if (!held) return;
    this.#entries.delete(key);
    this.#bytes -= held.index.footprint;
  }
}

/** `bytes`, or a copy of them when they are a view of a larger buffer (which keeping them would keep whole). */
const ownMemory = (bytes: Uint8Array): Uint8Array =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
