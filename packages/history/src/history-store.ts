/** `HistoryStore`: a store around any store that keeps the earlier versions of every file. */
import {
  type ChangeContext,
  emitChange,
  type FileData,
  isSameOrInside,
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
  type Usage,
  updateWithRetry,
  type Version,
  type WriteCondition,
} from "@mem/core";
import { ChangeLog, type ChangePage, type ChangeRecord, type ChangesOptions } from "./change-log.js";
import { purgeWithHistory } from "./erasure.js";
import type { HistoryEvent, VersionInfo } from "./events.js";
import { Fences } from "./fence.js";
import { HISTORY_NAME } from "./layout.js";
import { boundsOf, type HistoryOptions } from "./options.js";
import { type RollbackOptions, type RollbackResult, rollback } from "./rollback.js";
import { usageWithHistory } from "./usage.js";
import { Versions } from "./versions.js";

/** Where a scope finds the fences and scope chain of the store it was made from. */
const SHARED = Symbol("HistoryStore.shared");
type Shared = { readonly fences: Fences; readonly chain: string };
const DEEP = 1024; // deeper than any valid path, to list every file beneath a directory
const REMEMBERED_READS = 32;

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
  readonly #options: HistoryOptions;
  readonly #tenant: string | undefined;
  readonly #clock: () => number;
  readonly #reads = new Map<string, FileData>();
  readonly #versions: Versions;
  readonly #log: ChangeLog;
  readonly #fences: Fences;
  readonly #chain: string;

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
    const { maxVersions, maxAgeMs, maxBytes } = boundsOf(options);
    if (maxBytes !== Infinity && !Number.isInteger(maxBytes)) {
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
    const shared = (options as { [SHARED]?: Shared })[SHARED];
    this.#fences = shared?.fences ?? new Fences();
    this.#chain = shared ? shared.chain : "";
    this.#clock = options.clock ?? Date.now;
    const clock = this.#clock;
    this.#versions = new Versions({
      history: this.#history,
      base: this.#base,
      maxVersions,
      maxAgeMs,
      maxBytes,
      clock,
    });
    this.#log = new ChangeLog(this.#history, this.#base, clock, maxAgeMs);

    if (inner.scope) {
      const scopeInner = inner.scope.bind(inner);
      this.scope = (t: string) => {
        const side = options.history;
        if (side && !side.scope) throw new TypeError("history must have scope() to scope a HistoryStore");
        const chain = this.#chain === "" ? t : `${this.#chain}/${t}`;
        const scoped = {
          ...options,
          ...(side ? { history: side.scope!(t) } : {}),
          [SHARED]: { fences: this.#fences, chain },
        } as HistoryOptions;
        return new HistoryStore(scopeInner(t), scoped, t);
      };
    }
    if (inner.usage)
      this.usage = usageWithHistory(inner.usage.bind(inner), this.#history, this.#base, this.#own);
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
      const purge = purgeWithHistory(
        inner.purge.bind(inner),
        this.#history,
        this.#base,
        this.#own ? undefined : this.#history,
      );
      this.purge = (purgeOptions?: PurgeOptions) =>
        purgeOptions?.dryRun === true
          ? purge(purgeOptions)
          : this.#fences.erase(this.#chain, () => purge(purgeOptions));
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

  write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    context?: ChangeContext,
  ): Promise<{ version: Version }> {
    return this.#fences.change(this.#chain, path, () => this.#write(path, data, condition, context));
  }

  delete(path: string, context?: ChangeContext): Promise<boolean> {
    return this.#fences.change(this.#chain, path, () => this.#delete(path, context));
  }

  rename(from: string, to: string, context?: ChangeContext): Promise<void> {
    return this.#fences.change(this.#chain, from, () => this.#rename(from, to, context));
  }

  async #write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    context?: ChangeContext,
  ): Promise<{ version: Version }> {
    if ("ifAbsent" in condition) {
      const written = await this.inner.write(path, data, condition, context);
      await this.#record({ command: context?.command ?? "create", path, version: null }, context);
      this.#emit({ command: "create", path, sizeBefore: null, sizeAfter: data.byteLength }, data, context);
      return written;
    }
    const previous = await this.#current(path, condition.ifVersion);
    if (!previous) return this.inner.write(path, data, condition, context); // it fails: the version is not current
    // The version is written alongside the edit, not before it: a conditional write that waited for it
    // would hold its version twice as long, and concurrent editors would collide (and back off) far more.
    const keeping = this.#versions.keep(path, previous, context).then(
      (id) => id,
      () => undefined,
    );
    let written: { version: Version };
    try {
      written = await this.inner.write(path, data, condition, context);
    } catch (error) {
      // Only a write that commits leaves a version: a refused or lost one leaves nothing behind.
      const id = await keeping;
      if (id) await this.#versions.unkeep(path, id, previous.byteLength).catch(() => undefined);
      throw error;
    }
    const versionId = await keeping;
    this.#reads.delete(path);
    await this.#record({ command: context?.command ?? "edit", path, version: versionId ?? null }, context);
    const sizeBefore = previous.byteLength;
    const event = { command: "edit" as const, path, sizeBefore, sizeAfter: data.byteLength };
    this.#emit(versionId ? { ...event, versionId } : event, data, context);
    return written;
  }

  async #delete(path: string, context?: ChangeContext): Promise<boolean> {
    // Deleting /memories itself wipes the store, history included.
    if (path === ROOT && this.#own) return this.inner.delete(path, context);
    const kept = await this.#keepAll(path, context);
    let deleted = false;
    try {
      deleted = await this.inner.delete(path, context);
    } finally {
      if (!deleted) await this.#unkeepAll(kept);
    }
    for (const { path: p, size, versionId } of kept) {
      await this.#record({ command: context?.command ?? "delete", path: p, version: versionId }, context);
      this.#emit(
        { command: "delete", path: p, sizeBefore: size, sizeAfter: null, versionId },
        undefined,
        context,
      );
    }
    return deleted;
  }

  async #rename(from: string, to: string, context?: ChangeContext): Promise<void> {
    // Failures are the wrapped store's to report; keep nothing for a rename that cannot happen.
    if (!(await this.inner.stat(from)) || (await this.inner.stat(to)))
      return this.inner.rename(from, to, context);
    const kept = await this.#keepAll(from, context);
    try {
      await this.inner.rename(from, to, context);
    } catch (error) {
      await this.#unkeepAll(kept);
      throw error;
    }
    for (const { path, size, versionId } of kept) {
      const newPath = rebase(path, from, to);
      await this.#record(
        { command: context?.command ?? "rename", path, newPath, version: versionId },
        context,
      );
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
  versions(path: string): Promise<VersionInfo[]> {
    return this.#versions.list(path);
  }

  /**
   * The bytes of one version; `null` when there is no such version. Rejects with `RedactedVersionError`
   * when the version was redacted.
   */
  readVersion(path: string, id: string): Promise<Uint8Array | null> {
    return this.#versions.read(path, id);
  }

  /**
   * Removes the content of version `id` of `path` for good and leaves a tombstone in its place: the
   * version stays in `versions()` with `redacted: { time, by }` and size 0, and `readVersion` and
   * `restore` of it reject with `RedactedVersionError`. `by` names who redacted it (at most 128 bytes
   * of UTF-8, like an actor). Throws `NotFoundError` when there is no such version; redacting a
   * redacted version again changes nothing.
   */
  redact(path: string, id: string, options: { by?: string } = {}): Promise<void> {
    return this.#versions.redact(path, id, options);
  }

  /**
   * Removes every version of `path` (tombstones and bookkeeping too), as if it never had history;
   * resolves with how many versions and bytes went. The file itself is not touched.
   */
  forget(path: string): Promise<{ versions: number; bytes: number }> {
    return this.#versions.forget(path);
  }

  /**
   * Makes version `id` the content of `path` again, whether the file was edited, deleted or moved away
   * since. The content it replaces is kept as a version first, so a restore can be undone; the change log
   * records it as `restore` (by `options.actor`, when given). Throws `NotFoundError` when there is no
   * such version; resolves with the id under which the replaced content was kept (`undefined` when no
   * file was there).
   */
  restore(
    path: string,
    id: string,
    options: { actor?: string } = {},
  ): Promise<{ replacedVersionId: string | undefined }> {
    return this.#fences.change(this.#chain, path, () => this.#restore(path, id, options));
  }

  async #restore(
    path: string,
    id: string,
    options: { actor?: string },
  ): Promise<{ replacedVersionId: string | undefined }> {
    if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
    const context = { command: "restore", actor: options.actor };
    const data = await this.readVersion(path, id);
    if (!data) throw new NotFoundError(path);
    let replacedVersionId: string | undefined;
    let sizeBefore: number | null = null;
    await updateWithRetry(this.inner, path, async (current) => {
      // Kept before every attempt: a lost race means another writer replaced what was kept.
      if (replacedVersionId) await this.#versions.unkeep(path, replacedVersionId, sizeBefore ?? 0);
      replacedVersionId = current ? await this.#versions.keep(path, current.data, context) : undefined;
      sizeBefore = current ? current.data.byteLength : null;
      return data;
    });
    this.#reads.delete(path);
    await this.#record({ command: "restore", path, version: replacedVersionId ?? null }, context);
    const event = { command: "restore" as const, path, sizeBefore, sizeAfter: data.byteLength };
    this.#emit(
      replacedVersionId
        ? { ...event, versionId: replacedVersionId, restoredFrom: id }
        : { ...event, restoredFrom: id },
      data,
      context,
    );
    return { replacedVersionId };
  }

  /**
   * A page of the change log: every change that committed through this store (creates, edits, deletes,
   * renames, restores, rollbacks), oldest first, filtered by time (`since`, `until`), actor (`by`) and
   * path; `next` is the `after` of the next page. `tenant` reads that tenant's log (a store with `scope`).
   */
  async changes(options: ChangesOptions = {}): Promise<ChangePage> {
    const { tenant, ...rest } = options ?? {};
    if (tenant !== undefined) return this.#scoped(tenant).changes(rest);
    return this.#log.page(rest);
  }

  /**
   * Gives every file changed since `to` (by `by` only, if given) its state at `to` again: earlier content
   * restored, files created since deleted; or, with `undo`, puts back what the rollback of that id changed.
   * The replaced contents are kept as versions (by `actor`), and the whole rollback is one change of the
   * log (command `rollback`) whose id `rollback({ undo })` takes. Files whose earlier content the
   * history no longer holds (pruned, redacted) are left as they are and listed in `skipped`.
   */
  async rollback(options: RollbackOptions): Promise<RollbackResult> {
    if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
    const { tenant, ...rest } = options;
    if (tenant !== undefined) return this.#scoped(tenant).rollback(rest as RollbackOptions);
    const run = () =>
      rollback(
        {
          log: this.#log,
          versions: this.#versions,
          current: async (path) => (await this.inner.read(path))?.data ?? null,
          set: (path, data, actor) => this.#set(path, data, actor),
        },
        rest as RollbackOptions,
      );
    return rest.dryRun === true ? run() : this.#fences.change(this.#chain, ROOT, run);
  }

  /** Every path below `dir` (default `/memories`) that has kept versions, sorted: files deleted or moved away included. */
  paths(dir: string = ROOT): Promise<string[]> {
    return this.#versions.paths(dir);
  }

  /**
   * Removes the versions over the count and age limits, for every path, then any over `maxHistoryBytes`;
   * and the change log's records older than `maxAgeSeconds`.
   */
  async prune(): Promise<void> {
    await this.#versions.prune(await this.paths());
    await this.#log.prune();
  }

  #scoped(tenant: string): HistoryStore {
    if (!this.scope) throw new TypeError("tenant needs a store with scope()");
    return this.scope(tenant);
  }

  /** The current bytes of `path` if its version is still `version`. */
  async #current(path: string, version: Version): Promise<Uint8Array | null> {
    const remembered = this.#reads.get(path);
    if (remembered?.version === version) return remembered.data;
    const file = await this.inner.read(path);
    return file?.version === version ? file.data : null;
  }

  /** Records a committed change in the log; a failure to record never fails the change itself. */
  async #record(
    change: Omit<ChangeRecord, "actor">,
    context?: { actor?: string | undefined },
  ): Promise<void> {
    const record = context?.actor !== undefined ? { ...change, actor: context.actor } : change;
    await this.#log.append(record).catch(() => undefined);
  }

  /** A rollback's change of one file (see `RollbackHost.set`). */
  async #set(
    path: string,
    data: Uint8Array | null,
    actor: string | undefined,
  ): Promise<string | null | undefined> {
    const context = { command: "rollback", actor };
    this.#reads.delete(path);
    if (data === null) {
      const current = await this.inner.read(path);
      if (!current) return undefined;
      const id = await this.#versions.keep(path, current.data, context);
      if (!(await this.inner.delete(path, actor !== undefined ? { actor } : undefined))) {
        await this.#versions.unkeep(path, id, current.data.byteLength);
        return undefined;
      }
      this.#emit(
        { command: "delete", path, sizeBefore: current.data.byteLength, sizeAfter: null, versionId: id },
        undefined,
        context,
      );
      return id;
    }
    let before: { id: string | null; size: number | null } | undefined;
    await updateWithRetry(this.inner, path, async (current) => {
      if (before?.id) await this.#versions.unkeep(path, before.id, before.size ?? 0);
      before = current
        ? { id: await this.#versions.keep(path, current.data, context), size: current.data.byteLength }
        : { id: null, size: null };
      return data;
    });
    const kept = before!;
    const event = { command: "restore" as const, path, sizeBefore: kept.size, sizeAfter: data.byteLength };
    this.#emit(kept.id ? { ...event, versionId: kept.id } : event, data, context);
    return kept.id;
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
        versionId: await this.#versions.keep(file, current.data, context),
      });
    }
    this.#reads.clear();
    return kept;
  }

  /** Removes the versions `#keepAll` kept, for a delete or rename that did not happen. */
  async #unkeepAll(kept: readonly { path: string; size: number; versionId: string }[]): Promise<void> {
    for (const { path, size, versionId } of kept) {
      await this.#versions.unkeep(path, versionId, size).catch(() => undefined);
    }
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

  #emit(
    event: Omit<HistoryEvent, "tenant" | "content" | "actor" | "time" | "bytes">,
    content?: Uint8Array,
    context?: { actor?: string | undefined },
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
