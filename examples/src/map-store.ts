/**
 * A complete memory store in about 50 lines: four primitives over a `Map` (get with a version,
 * put-if-version, delete, list by prefix), and `bridgeStore` from @mem/core builds the rest: directories,
 * listings and their sizes, renames, usage, tenants, and every error as a typed store error. Each
 * primitive does its check and its change in one synchronous step, so put-if-version is atomic.
 */
import { bridgeStore, type KeyValuePrimitives, type MemoryStore, type Version } from "@mem/core";

interface Entry {
  value: Uint8Array;
  version: Version;
}

/** Bytes under string keys, each with a version that changes on every put. */
export class VersionedMap implements KeyValuePrimitives {
  readonly #entries = new Map<string, Entry>();
  #clock = 0;

  async get(key: string): Promise<Entry | null> {
    const entry = this.#entries.get(key);
    return entry ? { value: entry.value.slice(), version: entry.version } : null;
  }

  /** Stores `value` only if the key is at version `expected` (`null`: only if absent). */
  async put(key: string, value: Uint8Array, expected: Version | null): Promise<Version | null> {
    if ((this.#entries.get(key)?.version ?? null) !== expected) return null;
    const version = String(++this.#clock);
    this.#entries.set(key, { value: value.slice(), version });
    return version;
  }

  async delete(key: string, expected?: Version): Promise<boolean> {
    const entry = this.#entries.get(key);
    if (!entry || (expected !== undefined && entry.version !== expected)) return false;
    return this.#entries.delete(key);
  }

  async list(prefix: string): Promise<{ key: string; size: number }[]> {
    const found: { key: string; size: number }[] = [];
    for (const [key, entry] of this.#entries) {
      if (key.startsWith(prefix)) found.push({ key, size: entry.value.byteLength });
    }
    return found;
  }
}

/** A memory store over `map`; two stores over one map see the same files, as two clients of one server. */
export const createMapStore = (map = new VersionedMap()): MemoryStore => bridgeStore(map, { backend: "map" });
