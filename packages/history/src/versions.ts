/**
 * The kept versions of a `HistoryStore`: keeping one, listing, reading, redacting and forgetting them,
 * and the bounds (count and age per path, bytes per store, with its running total).
 */
import {
  checkActor,
  isSameOrInside,
  isStoreError,
  type MemoryStore,
  NotFoundError,
  TooManyConflictsError,
  updateWithRetry,
} from "@mem/core";
import type { VersionInfo } from "./events.js";
import {
  changeOfVersionId,
  historyDir,
  newVersionId,
  PATH_FILE,
  TOMBSTONE_PREFIX,
  TOTAL_FILE,
  timeOfVersionId,
  type VersionContext,
} from "./layout.js";

/** Old versions of a path are removed after every this many versions kept by one instance. */
const PRUNE_EVERY = 8;
/** Over the byte bound, the oldest versions are removed until this share of it is left. */
const LOW_WATER = 0.75;
/** Tries of a running-total update; after them its bytes wait for the instance's next update. */
const TOTAL_ATTEMPTS = 8;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A redacted version was asked for: its content is gone for good (`HistoryStore.redact`). */
export class RedactedVersionError extends Error {
  readonly code = "REDACTED";
  constructor(
    readonly path: string,
    readonly versionId: string,
  ) {
    super(`version ${versionId} of ${path} was redacted; its content is gone`);
    this.name = "RedactedVersionError";
  }
}

/** The running total in a total file, or `null` when it is not a plain decimal number. */
export const parseTotal = (data: Uint8Array): number | null => {
  const text = decoder.decode(data);
  return /^[0-9]{1,16}$/.test(text) ? Number(text) : null;
};

export interface VersionsSettings {
  /** Where versions are kept (the wrapped store itself, or the second store). */
  readonly history: MemoryStore;
  /** The directory of the history in `history`. */
  readonly base: string;
  readonly maxVersions: number;
  readonly maxAgeMs: number;
  readonly maxBytes: number;
  readonly clock: () => number;
}

/** The versions of every path of one store (one scope). */
export class Versions {
  readonly #s: VersionsSettings;
  /** Bytes kept or removed that could not be added to the running total yet (lost races). */
  #uncounted = 0;
  readonly #named = new Set<string>();
  readonly #keeps = new Map<string, number>();

  constructor(settings: VersionsSettings) {
    this.#s = settings;
  }

  get #bounded(): boolean {
    return this.#s.maxBytes !== Infinity;
  }

  get totalPath(): string {
    return `${this.#s.base}/${TOTAL_FILE}`;
  }

  /** Keeps `data` as a new version of `path`, then prunes; resolves with the new version's id. */
  async keep(path: string, data: Uint8Array, context?: VersionContext): Promise<string> {
    const { history, base, clock, maxBytes } = this.#s;
    const dir = historyDir(base, path);
    await this.#name(dir, path);
    const id = newVersionId(clock(), context);
    // Counted before it is written: a crash in between leaves the total too high (the next walk corrects
    // it), never too low, which would let history outgrow its bound unnoticed.
    const total = this.#bounded ? await this.#addToTotal(data.byteLength) : 0;
    await history.write(`${dir}/${id}`, data, { ifAbsent: true });
    if (total === null || total > maxBytes) await this.#rebalance();
    // Removal is lazy, to keep edits cheap: `list` never shows more than the limits allow anyway.
    const kept = (this.#keeps.get(dir) ?? 0) + 1;
    this.#keeps.set(dir, kept % PRUNE_EVERY);
    if (kept === PRUNE_EVERY) await this.#prune(path);
    return id;
  }

  /** Removes version `id` of `path` again (kept for a change that did not happen). */
  async unkeep(path: string, id: string, size: number): Promise<void> {
    const dir = historyDir(this.#s.base, path);
    if ((await this.#s.history.delete(`${dir}/${id}`)) && this.#bounded) await this.#addToTotal(-size);
  }

  /** The kept versions of `path`, newest first. */
  async list(path: string): Promise<VersionInfo[]> {
    const listing = await this.#s.history.list(historyDir(this.#s.base, path), 1);
    if (!listing) return [];
    const oldest = this.#s.clock() - this.#s.maxAgeMs;
    const out: VersionInfo[] = [];
    for (const entry of listing.entries) {
      const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
      const redacted = entry.kind === "file" && name.startsWith(TOMBSTONE_PREFIX);
      const id = redacted ? name.slice(TOMBSTONE_PREFIX.length) : name;
      const time = entry.kind === "file" ? timeOfVersionId(id) : null;
      if (time === null || time < oldest) continue;
      const info: VersionInfo = { id, time, size: redacted ? 0 : entry.size, ...changeOfVersionId(id) };
      out.push(redacted ? { ...info, redacted: await this.#tombstone(entry.path) } : info);
    }
    out.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    return out.slice(0, this.#s.maxVersions);
  }

  /** The bytes of one version; `null` when there is none; `RedactedVersionError` when it was redacted. */
  async read(path: string, id: string): Promise<Uint8Array | null> {
    if (timeOfVersionId(id) === null) return null;
    const dir = historyDir(this.#s.base, path);
    const file = await this.#s.history.read(`${dir}/${id}`);
    if (file) return file.data;
    if (await this.#s.history.stat(`${dir}/${TOMBSTONE_PREFIX}${id}`))
      throw new RedactedVersionError(path, id);
    return null;
  }

  /** See `HistoryStore.redact`. */
  async redact(path: string, id: string, options: { by?: string } = {}): Promise<void> {
    if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
    checkActor(options.by, "by");
    if (timeOfVersionId(id) === null) throw new NotFoundError(path);
    const { history, base, clock } = this.#s;
    const dir = historyDir(base, path);
    const tombstone = `${dir}/${TOMBSTONE_PREFIX}${id}`;
    const version = await history.read(`${dir}/${id}`);
    if (!version) {
      if (await history.stat(tombstone)) return;
      throw new NotFoundError(path);
    }
    const record = JSON.stringify({ time: clock(), ...(options.by !== undefined ? { by: options.by } : {}) });
    try {
      await history.write(tombstone, encoder.encode(record), { ifAbsent: true });
    } catch (error) {
      if (!isStoreError(error, "ALREADY_EXISTS")) throw error;
    }
    // The tombstone comes first: a crash in between leaves the content to a second redact, never a
    // version that vanished without a trace.
    if ((await history.delete(`${dir}/${id}`)) && this.#bounded)
      await this.#addToTotal(-version.data.byteLength);
  }

  /** See `HistoryStore.forget`. */
  async forget(path: string): Promise<{ versions: number; bytes: number }> {
    const dir = historyDir(this.#s.base, path);
    const listing = await this.#s.history.list(dir, 1);
    let versions = 0;
    let bytes = 0;
    for (const entry of listing?.entries ?? []) {
      const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
      if (entry.kind !== "file" || timeOfVersionId(name) === null) continue;
      versions += 1;
      bytes += entry.size;
    }
    await this.#s.history.delete(dir);
    this.#named.delete(dir);
    this.#keeps.delete(dir);
    if (bytes > 0 && this.#bounded) await this.#addToTotal(-bytes);
    return { versions, bytes };
  }

  /** Every path below `dir` that has kept versions, sorted. */
  async paths(dir: string): Promise<string[]> {
    const { history, base } = this.#s;
    const listing = await history.list(base, 1);
    const out: string[] = [];
    for (const entry of listing?.entries ?? []) {
      if (entry.kind !== "directory") continue;
      const file = await history.read(`${entry.path}/${PATH_FILE}`);
      const path = file ? decoder.decode(file.data) : null;
      if (path && isSameOrInside(path, dir) && path !== base) out.push(path);
    }
    return out.sort();
  }

  /** Removes the versions over the count and age limits, for every path, then any over the byte bound. */
  async prune(paths: readonly string[]): Promise<void> {
    for (const path of paths) await this.#prune(path);
    if (this.#bounded) await this.#rebalance();
  }

  async #tombstone(at: string): Promise<{ time: number; by?: string }> {
    const file = await this.#s.history.read(at);
    try {
      const parsed = JSON.parse(decoder.decode(file?.data ?? new Uint8Array())) as {
        time?: unknown;
        by?: unknown;
      };
      const time = typeof parsed.time === "number" ? parsed.time : 0;
      return typeof parsed.by === "string" ? { time, by: parsed.by } : { time };
    } catch {
      return { time: 0 };
    }
  }

  /** Records which path the history directory `dir` belongs to, once per instance. */
  async #name(dir: string, path: string): Promise<void> {
    if (this.#named.has(dir)) return;
    try {
      await this.#s.history.write(`${dir}/${PATH_FILE}`, encoder.encode(path), { ifAbsent: true });
    } catch (error) {
      if (!isStoreError(error, "ALREADY_EXISTS")) throw error;
    }
    this.#named.add(dir);
  }

  async #prune(path: string): Promise<void> {
    const { history, base, clock, maxAgeMs, maxVersions } = this.#s;
    const dir = historyDir(base, path);
    const listing = await history.list(dir, 1);
    const oldest = clock() - maxAgeMs;
    const entries = listing?.entries ?? [];
    const versions = entries
      .map((e) => ({ id: e.path.slice(e.path.lastIndexOf("/") + 1), size: e.size }))
      .filter(({ id }) => timeOfVersionId(id) !== null)
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    let removed = 0;
    for (const [i, { id, size }] of versions.entries()) {
      if (i >= maxVersions || timeOfVersionId(id)! < oldest) {
        await history.delete(`${dir}/${id}`);
        removed += size;
      }
    }
    if (removed > 0 && this.#bounded) await this.#addToTotal(-removed);
    // The byte bound may have removed this directory's path file while another instance kept a version.
    if (versions.length > 0 && !entries.some((e) => e.path === `${dir}/${PATH_FILE}`)) {
      this.#named.delete(dir);
      await this.#name(dir, path);
    }
  }

  /**
   * Adds `delta` bytes to the running total; resolves with the new total, or `null` when there is no
   * valid total to add to (missing, or not a number): the walk that follows writes it. After too many
   * lost races the bytes wait for this instance's next update.
   */
  async #addToTotal(delta: number): Promise<number | null> {
    const change = delta + this.#uncounted;
    this.#uncounted = 0;
    let next: number | null = null;
    try {
      await updateWithRetry(
        this.#s.history,
        this.totalPath,
        (current) => {
          const before = current ? parseTotal(current.data) : null;
          next = before === null ? null : Math.max(0, before + change);
          return next === null ? null : encoder.encode(String(next));
        },
        { attempts: TOTAL_ATTEMPTS },
      );
      return next;
    } catch (error) {
      // `instanceof`: the loop's own error, from this copy of core (a store's errors are tested by shape).
      if (!(error instanceof TooManyConflictsError)) throw error;
      this.#uncounted = change;
      return 0;
    }
  }

  /**
   * One walk of the history: removes the oldest versions, all paths together, until at most three
   * quarters of `maxBytes` are left (a path left without versions loses its directory), and writes
   * the running total from what it found. Runs when the total is over the bound or missing, so its cost
   * is spread over at least a quarter of the bound's bytes of new versions. Bytes other instances counted
   * during the walk are added on top: the total may come out high (the next walk corrects it), not low.
   */
  async #rebalance(): Promise<void> {
    const { history, base, maxBytes } = this.#s;
    const start = await history.read(this.totalPath);
    const startTotal = start ? parseTotal(start.data) : null;
    const listing = await history.list(base, 2);
    const versions: { path: string; dir: string; id: string; size: number }[] = [];
    const left = new Map<string, number>();
    for (const entry of listing?.entries ?? []) {
      if (entry.kind !== "file" || entry.depth !== 2) continue;
      const cut = entry.path.lastIndexOf("/");
      const id = entry.path.slice(cut + 1);
      if (timeOfVersionId(id) === null) continue;
      const dir = entry.path.slice(0, cut);
      versions.push({ path: entry.path, dir, id, size: entry.size });
      left.set(dir, (left.get(dir) ?? 0) + 1);
    }
    let total = versions.reduce((n, v) => n + v.size, 0);
    if (total > maxBytes) {
      const target = Math.floor(maxBytes * LOW_WATER);
      versions.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      for (const version of versions) {
        if (total <= target) break;
        await history.delete(version.path);
        total -= version.size;
        const remaining = left.get(version.dir)! - 1;
        left.set(version.dir, remaining);
        if (remaining === 0) {
          await history.delete(`${version.dir}/${PATH_FILE}`);
          this.#named.delete(version.dir);
        }
      }
    }
    try {
      await updateWithRetry(
        history,
        this.totalPath,
        (current) => {
          const now = current ? parseTotal(current.data) : null;
          const since = startTotal !== null && now !== null ? Math.max(0, now - startTotal) : 0;
          return encoder.encode(String(total + since + this.#uncounted));
        },
        { attempts: TOTAL_ATTEMPTS },
      );
      this.#uncounted = 0;
    } catch (error) {
      // The bytes not yet counted wait for this instance's next update.
      // `instanceof`: the loop's own error, from this copy of core (a store's errors are tested by shape).
      if (!(error instanceof TooManyConflictsError)) throw error;
    }
  }
}
