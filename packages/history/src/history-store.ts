/** `HistoryStore`: a store around any store that keeps the earlier versions of every file. */
import {
  type ChangeContext,
  checkActor,
  emitChange,
  type FileData,
  isSameOrInside,
  isStoreError,
  type Listing,
  type MemoryStore,
  NotFoundError,
  type PathLimits,
  type PurgeOptions,
  type PurgeResult,
  ROOT,
  rebase,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  type SweepResult,
  type TenantPage,
  type TenantsOptions,
  TooManyConflictsError,
  type Usage,
  updateWithRetry,
  type Version,
  type WriteCondition,
} from "@mem/core";
import type { HistoryEvent, VersionInfo } from "./events.js";
import {
  changeOfVersionId,
  HISTORY_NAME,
  historyDir,
  newVersionId,
  PATH_FILE,
  TOMBSTONE_PREFIX,
  TOTAL_FILE,
  timeOfVersionId,
} from "./layout.js";

export interface HistoryOptions {
  /** Versions kept per file, newest first; older ones are removed. Default 50. */
  maxVersions?: number;
  /** Versions older than this many seconds are removed. Default 30 days; `Infinity` keeps them. */
  maxAgeSeconds?: number;
  /**
   * The bytes of kept versions this store (each `scope(tenant)` on its own) may hold, all paths together.
   * Over it, the oldest versions are removed, down to three quarters of it. Default 64 MiB; `Infinity`
   * turns the bound (and its bookkeeping) off.
   */
  maxHistoryBytes?: number;
  /**
   * A second store for the versions. Default: the wrapped store itself, under the reserved hidden
   * directory `/memories/.mem-history` (invisible in listings and sizes, refused as a path to the model).
   */
  history?: MemoryStore;
  /** Called after each change (not awaited; what it throws or rejects with is ignored). */
  onChange?: (event: HistoryEvent) => void | Promise<void>;
  /** Put the new content in each event's `content`. Default false. */
  includeContent?: boolean;
  /** Milliseconds since the epoch; inject a fake clock in tests. Default `Date.now`. */
  clock?: () => number;
}

const DAY = 24 * 60 * 60;
const DEEP = 1024; // deeper than any valid path, to list every file beneath a directory
const REMEMBERED_READS = 32;
/** Old versions of a path are removed after every this many versions kept by one instance. */
const PRUNE_EVERY = 8;
/** Default of `maxHistoryBytes`. */
const DEFAULT_MAX_HISTORY_BYTES = 64 * 1024 * 1024;
/** Over the byte bound, the oldest versions are removed until this share of it is left. */
const LOW_WATER = 0.75;
/** Tries of a running-total update; after them its bytes wait for the instance's next update. */
const TOTAL_ATTEMPTS = 8;
const encoder = new TextEncoder();

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
const decoder = new TextDecoder();

/** The running total in a total file, or `null` when it is not a plain decimal number. */
const parseTotal = (data: Uint8Array): number | null => {
  const text = decoder.decode(data);
  return /^[0-9]{1,16}$/.test(text) ? Number(text) : null;
};

const positive = (value: unknown, name: string, fallback: number, integer: boolean): number => {
  if (value === undefined) return fallback;
  const ok =
    typeof value === "number" && value > 0 && (integer ? Number.isInteger(value) : !Number.isNaN(value));
  if (!ok) throw new TypeError(`${name} must be a positive ${integer ? "integer" : "number"}`);
  return value;
};

/**
 * Keeps the earlier versions of every file of `inner`: before a file is overwritten, deleted or moved
 * away, its content is kept as a version, bounded per file by count and age. `restore` brings any version
 * back and is itself undoable. Commands, listings and sizes are those of `inner`.
 *
 * @example
 * ```ts
 * import { executeCommand, InMemoryStore } from "@mem/core";
 * import { HistoryStore } from "@mem/history";
 *
 * const store = new HistoryStore(new InMemoryStore(), { maxVersions: 20 });
 * await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "v1\n" });
 * await executeCommand(store, { command: "str_replace", path: "/memories/a.md", old_str: "v1", new_str: "v2" });
 * const [previous] = await store.versions("/memories/a.md"); // the "v1\n" version
 * await store.restore("/memories/a.md", previous!.id);         // the file holds "v1\n" again
 * ```
 */
export class HistoryStore implements MemoryStore {
  readonly inner: MemoryStore;
  readonly #history: MemoryStore;
  readonly #base: string;
  readonly #own: boolean;
  readonly #maxVersions: number;
  readonly #maxAgeMs: number;
  readonly #maxBytes: number;
  /** Bytes kept or removed that could not be added to the running total yet (lost races). */
  #uncounted = 0;
  readonly #options: HistoryOptions;
  readonly #tenant: string | undefined;
  readonly #clock: () => number;
  readonly #reads = new Map<string, FileData>();
  readonly #named = new Set<string>();
  readonly #keeps = new Map<string, number>();

  /** Present when the wrapped store has it: a `HistoryStore` over `inner.scope(tenant)`. */
  readonly scope?: (tenant: string) => HistoryStore;
  /** Present when the wrapped store has it: the files and bytes the model sees (history left out). */
  readonly usage?: () => Promise<Usage>;
  /** Present when the wrapped store has it: expired files removed (history's own left out of the report). */
  readonly sweep?: () => Promise<SweepResult>;
  readonly check?: () => Promise<void>;
  /** Present when the wrapped store has it: every file the model's store holds, the kept versions left out. */
  readonly files?: () => Promise<StoredFile[]>;
  /** Present when the wrapped store has it: the wrapped store's tenants. */
  readonly tenants?: (options?: TenantsOptions) => Promise<TenantPage>;
  /**
   * Present when the wrapped store has it: the tenant's files and every version are erased (in the
   * second store too, which must then have `purge`). `versions` counts the versions removed; `files`
   * and `bytes` the model's files.
   */
  readonly purge?: (options?: PurgeOptions) => Promise<PurgeResult>;

  constructor(inner: MemoryStore, options: HistoryOptions = {}, tenant?: string) {
    this.inner = inner;
    if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
    this.#maxVersions = positive(options.maxVersions, "maxVersions", 50, true);
    this.#maxAgeMs = positive(options.maxAgeSeconds, "maxAgeSeconds", 30 * DAY, false) * 1000;
    this.#maxBytes = positive(options.maxHistoryBytes, "maxHistoryBytes", DEFAULT_MAX_HISTORY_BYTES, false);
    if (this.#maxBytes !== Infinity && !Number.isInteger(this.#maxBytes)) {
      throw new TypeError("maxHistoryBytes must be a positive integer or Infinity");
    }
    for (const name of ["onChange", "clock"] as const) {
      if (options[name] !== undefined && typeof options[name] !== "function") {
        throw new TypeError(`${name} must be a function`);
      }
    }
    if (options.history !== undefined && (typeof options.history !== "object" || options.history === null)) {
      throw new TypeError("history must be a MemoryStore");
    }
    if (options.history === inner) throw new TypeError("history must be another store than the one wrapped");
    this.#options = options;
    this.#own = options.history === undefined;
    this.#history = options.history ?? inner;
    this.#base = this.#own ? `${ROOT}/${HISTORY_NAME}` : ROOT;
    this.#tenant = tenant;
    this.#clock = options.clock ?? Date.now;

    if (inner.scope) {
      const scopeInner = inner.scope.bind(inner);
      this.scope = (t: string) => {
        const side = options.history;
        if (side && !side.scope) throw new TypeError("history must have scope() to scope a HistoryStore");
        const scoped: HistoryOptions = side ? { ...options, history: side.scope!(t) } : options;
        return new HistoryStore(scopeInner(t), scoped, t);
      };
    }
    if (inner.usage) {
      const usage = inner.usage.bind(inner);
      this.usage = async () => {
        const total = await usage();
        if (!this.#own) {
          // The second store's running total (one read) instead of a walk of it on every quota check.
          const counted = await this.#history.read(this.#totalPath);
          const side =
            (counted && parseTotal(counted.data)) ?? (await this.#history.list(this.#base, 2))?.size ?? 0;
          return { files: total.files, bytes: total.bytes, historyBytes: side };
        }
        const kept = await this.#history.list(this.#base, 2);
        const files = kept?.entries.filter((e) => e.kind === "file").length ?? 0;
        const historyBytes = kept?.size ?? 0;
        return { files: total.files - files, bytes: total.bytes - historyBytes, historyBytes };
      };
    }
    if (inner.sweep) {
      const sweep = inner.sweep.bind(inner);
      this.sweep = async () => {
        const swept = await sweep();
        if (!this.#own) return swept;
        return { ...swept, paths: swept.paths.filter((p) => !isSameOrInside(p, this.#base)) };
      };
    }
    if (inner.check) this.check = inner.check.bind(inner);
    if (inner.tenants) this.tenants = inner.tenants.bind(inner);
    if (inner.purge) {
      const purge = inner.purge.bind(inner);
      this.purge = async (purgeOptions?: PurgeOptions) => {
        const side = this.#own ? undefined : this.#history;
        if (side && !side.purge) throw new TypeError("history must have purge() to purge a HistoryStore");
        // Counted before: the versions and bookkeeping beside the files are not the model's files.
        const kept = await this.#history.list(this.#base, 2);
        const versions = (kept?.entries ?? []).filter(
          (e) => e.kind === "file" && timeOfVersionId(e.path.slice(e.path.lastIndexOf("/") + 1)) !== null,
        ).length;
        const result = await purge(purgeOptions);
        if (side?.purge) {
          await side.purge(purgeOptions);
          return { files: result.files, bytes: result.bytes, versions };
        }
        const files = (kept?.entries ?? []).filter((e) => e.kind === "file").length;
        return {
          files: Math.max(0, result.files - files),
          bytes: Math.max(0, result.bytes - (kept?.size ?? 0)),
          versions,
        };
      };
    }
    if (inner.files) {
      const files = inner.files.bind(inner);
      this.files = async () => {
        const all = await files();
        return this.#own ? all.filter((f) => !isSameOrInside(f.path, this.#base)) : all;
      };
    }
  }

  get capabilities(): StoreCapabilities | undefined {
    return this.inner.capabilities;
  }
  get pathLimits(): PathLimits | undefined {
    return this.inner.pathLimits;
  }
  get maxFileBytes(): number | undefined {
    return this.inner.maxFileBytes;
  }
  get backend(): string | undefined {
    return this.inner.backend;
  }
  stat(path: string): Promise<Stat | null> {
    return this.inner.stat(path);
  }
  list(dir: string, depth: number): Promise<Listing | null> {
    return this.inner.list(dir, depth);
  }

  isReservedName(name: string): boolean {
    return (this.#own && name === HISTORY_NAME) || (this.inner.isReservedName?.(name) ?? false);
  }

  async read(path: string): Promise<FileData | null> {
    const file = await this.inner.read(path);
    if (file) {
      // An edit reads, then writes on the version it read: keep the bytes so the write need not read again.
      this.#reads.delete(path);
      this.#reads.set(path, file);
      if (this.#reads.size > REMEMBERED_READS) this.#reads.delete(this.#reads.keys().next().value!);
    }
    return file;
  }

  async write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    context?: ChangeContext,
  ): Promise<{ version: Version }> {
    if ("ifAbsent" in condition) {
      const written = await this.inner.write(path, data, condition, context);
      this.#emit({ command: "create", path, sizeBefore: null, sizeAfter: data.byteLength }, data, context);
      return written;
    }
    const previous = await this.#current(path, condition.ifVersion);
    if (!previous) return this.inner.write(path, data, condition, context); // it fails: the version is not current
    // The version is written alongside the edit, not before it: a conditional write that waited for it
    // would hold its version twice as long, and concurrent editors would collide (and back off) far more.
    const keeping = this.#keep(path, previous, context).then(
      (id) => id,
      () => undefined,
    );
    let written: { version: Version };
    try {
      written = await this.inner.write(path, data, condition, context);
    } finally {
      await keeping;
    }
    const versionId = await keeping;
    this.#reads.delete(path);
    const sizeBefore = previous.byteLength;
    const event = { command: "edit" as const, path, sizeBefore, sizeAfter: data.byteLength };
    this.#emit(versionId ? { ...event, versionId } : event, data, context);
    return written;
  }

  async delete(path: string, context?: ChangeContext): Promise<boolean> {
    // Deleting /memories itself wipes the store, history included.
    if (path === ROOT && this.#own) return this.inner.delete(path, context);
    const kept = await this.#keepAll(path, context);
    const deleted = await this.inner.delete(path, context);
    if (deleted) {
      for (const { path: p, size, versionId } of kept) {
        this.#emit(
          { command: "delete", path: p, sizeBefore: size, sizeAfter: null, versionId },
          undefined,
          context,
        );
      }
    }
    return deleted;
  }

  async rename(from: string, to: string, context?: ChangeContext): Promise<void> {
    // Failures are the wrapped store's to report; keep nothing for a rename that cannot happen.
    if (!(await this.inner.stat(from)) || (await this.inner.stat(to)))
      return this.inner.rename(from, to, context);
    const kept = await this.#keepAll(from, context);
    await this.inner.rename(from, to, context);
    for (const { path, size, versionId } of kept) {
      const newPath = rebase(path, from, to);
      const event = {
        command: "rename" as const,
        path,
        newPath,
        sizeBefore: size,
        sizeAfter: size,
        versionId,
      };
      this.#emit(event, undefined, context);
    }
  }

  async close(): Promise<void> {
    await this.inner.close?.();
    if (!this.#own) await this.#history.close?.();
  }

  /** The kept versions of `path`, newest first (the current content is not one of them). */
  async versions(path: string): Promise<VersionInfo[]> {
    const listing = await this.#history.list(historyDir(this.#base, path), 1);
    if (!listing) return [];
    const oldest = this.#clock() - this.#maxAgeMs;
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
    return out.slice(0, this.#maxVersions);
  }

  /**
   * The bytes of one version; `null` when there is no such version. Rejects with `RedactedVersionError`
   * when the version was redacted.
   */
  async readVersion(path: string, id: string): Promise<Uint8Array | null> {
    if (timeOfVersionId(id) === null) return null;
    const dir = historyDir(this.#base, path);
    const file = await this.#history.read(`${dir}/${id}`);
    if (file) return file.data;
    if (await this.#history.stat(`${dir}/${TOMBSTONE_PREFIX}${id}`)) throw new RedactedVersionError(path, id);
    return null;
  }

  /**
   * Removes the content of version `id` of `path` for good and leaves a tombstone in its place: the
   * version stays in `versions()` with `redacted: { time, by }` and size 0, and `readVersion` and
   * `restore` of it reject with `RedactedVersionError`. `by` names who redacted it (at most 128 bytes
   * of UTF-8, like an actor). Throws `NotFoundError` when there is no such version; redacting a
   * redacted version again changes nothing.
   */
  async redact(path: string, id: string, options: { by?: string } = {}): Promise<void> {
    if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
    checkActor(options.by, "by");
    if (timeOfVersionId(id) === null) throw new NotFoundError(path);
    const dir = historyDir(this.#base, path);
    const tombstone = `${dir}/${TOMBSTONE_PREFIX}${id}`;
    const version = await this.#history.read(`${dir}/${id}`);
    if (!version) {
      if (await this.#history.stat(tombstone)) return;
      throw new NotFoundError(path);
    }
    const record = JSON.stringify({
      time: this.#clock(),
      ...(options.by !== undefined ? { by: options.by } : {}),
    });
    try {
      await this.#history.write(tombstone, encoder.encode(record), { ifAbsent: true });
    } catch (error) {
      if (!isStoreError(error, "ALREADY_EXISTS")) throw error;
    }
    // The tombstone comes first: a crash in between leaves the content to a second redact, never a
    // version that vanished without a trace.
    if ((await this.#history.delete(`${dir}/${id}`)) && this.#maxBytes !== Infinity) {
      await this.#addToTotal(-version.data.byteLength);
    }
  }

  /**
   * Removes every version of `path` (tombstones and bookkeeping too), as if it never had history;
   * resolves with how many versions and bytes went. The file itself is not touched.
   */
  async forget(path: string): Promise<{ versions: number; bytes: number }> {
    const dir = historyDir(this.#base, path);
    const listing = await this.#history.list(dir, 1);
    let versions = 0;
    let bytes = 0;
    for (const entry of listing?.entries ?? []) {
      const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
      if (entry.kind !== "file" || timeOfVersionId(name) === null) continue;
      versions += 1;
      bytes += entry.size;
    }
    await this.#history.delete(dir);
    this.#named.delete(dir);
    this.#keeps.delete(dir);
    if (bytes > 0 && this.#maxBytes !== Infinity) await this.#addToTotal(-bytes);
    return { versions, bytes };
  }

  async #tombstone(at: string): Promise<{ time: number; by?: string }> {
    const file = await this.#history.read(at);
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

  /**
   * Makes version `id` the content of `path` again, whether the file was edited, deleted or moved away
   * since. The content it replaces is kept as a version first, so a restore can be undone. Throws
   * `NotFoundError` when there is no such version; resolves with the id under which the replaced content
   * was kept (`undefined` when no file was there).
   */
  async restore(path: string, id: string): Promise<{ replacedVersionId: string | undefined }> {
    const data = await this.readVersion(path, id);
    if (!data) throw new NotFoundError(path);
    let replacedVersionId: string | undefined;
    let sizeBefore: number | null = null;
    await updateWithRetry(this.inner, path, async (current) => {
      // Kept before every attempt: a lost race means another writer replaced what was kept.
      replacedVersionId = current ? await this.#keep(path, current.data) : undefined;
      sizeBefore = current ? current.data.byteLength : null;
      return data;
    });
    this.#reads.delete(path);
    const event = { command: "restore" as const, path, sizeBefore, sizeAfter: data.byteLength };
    this.#emit(
      replacedVersionId
        ? { ...event, versionId: replacedVersionId, restoredFrom: id }
        : { ...event, restoredFrom: id },
      data,
    );
    return { replacedVersionId };
  }

  /** Every path below `dir` (default `/memories`) that has kept versions, sorted: files deleted or moved away included. */
  async paths(dir: string = ROOT): Promise<string[]> {
    const listing = await this.#history.list(this.#base, 1);
    const out: string[] = [];
    for (const entry of listing?.entries ?? []) {
      if (entry.kind !== "directory") continue;
      const file = await this.#history.read(`${entry.path}/${PATH_FILE}`);
      const path = file ? decoder.decode(file.data) : null;
      if (path && isSameOrInside(path, dir) && path !== this.#base) out.push(path);
    }
    return out.sort();
  }

  /** Removes the versions over the count and age limits, for every path, then any over `maxHistoryBytes`. */
  async prune(): Promise<void> {
    for (const path of await this.paths()) await this.#prune(path);
    if (this.#maxBytes !== Infinity) await this.#rebalance();
  }

  /** The current bytes of `path` if its version is still `version`. */
  async #current(path: string, version: Version): Promise<Uint8Array | null> {
    const remembered = this.#reads.get(path);
    if (remembered?.version === version) return remembered.data;
    const file = await this.inner.read(path);
    return file?.version === version ? file.data : null;
  }

  /** Keeps `data` as a new version of `path`, then prunes; resolves with the new version's id. */
  async #keep(path: string, data: Uint8Array, context?: ChangeContext): Promise<string> {
    const dir = historyDir(this.#base, path);
    await this.#name(dir, path);
    const id = newVersionId(this.#clock(), context);
    // Counted before it is written: a crash in between leaves the total too high (the next walk corrects
    // it), never too low, which would let history outgrow its bound unnoticed.
    const total = this.#maxBytes === Infinity ? 0 : await this.#addToTotal(data.byteLength);
    await this.#history.write(`${dir}/${id}`, data, { ifAbsent: true });
    if (total === null || total > this.#maxBytes) await this.#rebalance();
    // Removal is lazy, to keep edits cheap: `versions` never shows more than the limits allow anyway.
    const kept = (this.#keeps.get(dir) ?? 0) + 1;
    this.#keeps.set(dir, kept % PRUNE_EVERY);
    if (kept === PRUNE_EVERY) await this.#prune(path);
    return id;
  }

  /** Records which path the history directory `dir` belongs to, once per instance. */
  async #name(dir: string, path: string): Promise<void> {
    if (this.#named.has(dir)) return;
    try {
      await this.#history.write(`${dir}/${PATH_FILE}`, encoder.encode(path), { ifAbsent: true });
    } catch (error) {
      if (!isStoreError(error, "ALREADY_EXISTS")) throw error;
    }
    this.#named.add(dir);
  }

  /** Keeps every file at or beneath `path`, before it is deleted or moved away. */
  async #keepAll(
    path: string,
    context?: ChangeContext,
  ): Promise<{ path: string; size: number; versionId: string }[]> {
    const stat = path === ROOT ? ({ kind: "directory" } as const) : await this.inner.stat(path);
    if (!stat) return [];
    const files = stat.kind === "file" ? [path] : await this.#filesBeneath(path);
    const kept: { path: string; size: number; versionId: string }[] = [];
    for (const file of files) {
      const current = await this.inner.read(file);
      if (!current) continue;
      kept.push({
        path: file,
        size: current.data.byteLength,
        versionId: await this.#keep(file, current.data, context),
      });
    }
    this.#reads.clear();
    return kept;
  }

  /**
   * The files beneath directory `dir`: hidden and `node_modules` ones too when the wrapped store has
   * `files()` (which walks the whole store), only the listed ones otherwise. The history's own files are
   * never among them.
   */
  async #filesBeneath(dir: string): Promise<string[]> {
    if (this.inner.files) {
      const all = await this.inner.files();
      return all
        .map((f) => f.path)
        .filter((p) => isSameOrInside(p, dir) && p !== dir && !(this.#own && isSameOrInside(p, this.#base)));
    }
    return ((await this.inner.list(dir, DEEP))?.entries ?? [])
      .filter((e) => e.kind === "file")
      .map((e) => e.path);
  }

  async #prune(path: string): Promise<void> {
    const dir = historyDir(this.#base, path);
    const listing = await this.#history.list(dir, 1);
    const oldest = this.#clock() - this.#maxAgeMs;
    const entries = listing?.entries ?? [];
    const versions = entries
      .map((e) => ({ id: e.path.slice(e.path.lastIndexOf("/") + 1), size: e.size }))
      .filter(({ id }) => timeOfVersionId(id) !== null)
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    let removed = 0;
    for (const [i, { id, size }] of versions.entries()) {
      if (i >= this.#maxVersions || timeOfVersionId(id)! < oldest) {
        await this.#history.delete(`${dir}/${id}`);
        removed += size;
      }
    }
    if (removed > 0 && this.#maxBytes !== Infinity) await this.#addToTotal(-removed);
    // The byte bound may have removed this directory's path file while another instance kept a version.
    if (versions.length > 0 && !entries.some((e) => e.path === `${dir}/${PATH_FILE}`)) {
      this.#named.delete(dir);
      await this.#name(dir, path);
    }
  }

  get #totalPath(): string {
    return `${this.#base}/${TOTAL_FILE}`;
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
        this.#history,
        this.#totalPath,
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
   * quarters of `maxHistoryBytes` are left (a path left without versions loses its directory), and writes
   * the running total from what it found. Runs when the total is over the bound or missing, so its cost
   * is spread over at least a quarter of the bound's bytes of new versions. Bytes other instances counted
   * during the walk are added on top: the total may come out high (the next walk corrects it), not low.
   */
  async #rebalance(): Promise<void> {
    const start = await this.#history.read(this.#totalPath);
    const startTotal = start ? parseTotal(start.data) : null;
    const listing = await this.#history.list(this.#base, 2);
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
    if (total > this.#maxBytes) {
      const target = Math.floor(this.#maxBytes * LOW_WATER);
      versions.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      for (const version of versions) {
        if (total <= target) break;
        await this.#history.delete(version.path);
        total -= version.size;
        const remaining = left.get(version.dir)! - 1;
        left.set(version.dir, remaining);
        if (remaining === 0) {
          await this.#history.delete(`${version.dir}/${PATH_FILE}`);
          this.#named.delete(version.dir);
        }
      }
    }
    try {
      await updateWithRetry(
        this.#history,
        this.#totalPath,
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

  #emit(
    event: Omit<HistoryEvent, "tenant" | "content" | "actor" | "time" | "bytes">,
    content?: Uint8Array,
    context?: ChangeContext,
  ): void {
    const hook = this.#options.onChange;
    if (!hook) return;
    const written = event.command === "rename" || event.command === "delete" ? 0 : (event.sizeAfter ?? 0);
    const full: HistoryEvent = {
      ...event,
      ...(this.#tenant !== undefined ? { tenant: this.#tenant } : {}),
      ...(context?.actor !== undefined ? { actor: context.actor } : {}),
      time: this.#clock(),
      bytes: written,
      ...(this.#options.includeContent && content ? { content: content.slice() } : {}),
    };
    emitChange(hook, full);
  }
}
