/**
 * The bytes of large files that `view_range` windows were read from, kept by a store between windows with
 * their line index and a token the store reads them at: a string that names one content of the file for
 * good (a version no later write or purge can give again). The next window asks the server only whether
 * the token still holds: a reply of a few bytes instead of the whole file, and never a stale window.
 */
import type { LineIndex } from "./line-index.js";

/** Files smaller than this are read whole for each window: the round trip costs more than their bytes. */
export const LINE_CACHE_SMALLEST_BYTES = 64 * 1024;

/** The default size of a store's cache (`lineCacheBytes` in the stores that keep one). */
export const DEFAULT_LINE_CACHE_BYTES = 32 * 1024 * 1024;

export interface HeldLines {
  readonly token: string;
  readonly index: LineIndex;
}

/**
 * Least recently used entries go first once their footprints pass `budget` bytes.
 *
 * @example
 * ```ts
 * const cache = new LineCache(32 * 1024 * 1024);
 * const held = cache.get(key); // ask the server for the file unless `held.token` is still its token
 * cache.put(key, token, LineIndex.of(bytes)!);
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

  /** Keeps `index` under `key` when it is worth keeping and fits; forgets what was there otherwise. */
  put(key: string, token: string, index: LineIndex): void {
    this.delete(key);
    const size = index.footprint;
    if (token === "" || index.size < LINE_CACHE_SMALLEST_BYTES || size > this.budget) return;
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
