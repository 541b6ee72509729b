/**
 * `AnthropicMemoryStore`: a `MemoryStore` on Anthropic's hosted memory stores, through the official
 * SDK's `client.beta.memoryStores.memories`. Versions are the memories' `content_sha256`; every write is
 * conditional (create refuses a used path, edits carry a `content_sha256` precondition, deletes an
 * `expected_content_sha256`).
 */
import type Anthropic from "@anthropic-ai/sdk";
import {
  AlreadyExistsError,
  type ChangeContext,
  ConflictError,
  checkTenant,
  type FileData,
  type FileOrListing,
  isSameOrInside,
  type Listing,
  type ListOptions,
  listingFromFiles,
  type MemoryStore,
  NotADirectoryError,
  NotFoundError,
  type PathLimits,
  type PurgeOptions,
  type PurgeResult,
  ROOT,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  StoreFailureError,
  type TenantPage,
  type TenantsOptions,
  type Usage,
  type Version,
  type WriteCondition,
} from "@mem/core";
import { errorObjectOf, toStoreFailure } from "./failure.js";
import {
  checkPrefix,
  HOSTED_MAX_CONTENT_BYTES,
  HOSTED_MAX_SEGMENTS,
  Namespace,
  refusesName,
} from "./paths.js";
import { completeRenames, renameDirectory } from "./rename.js";
import { type Memory, RequestFailure, Requests } from "./requests.js";
import { sha256Hex } from "./sha.js";
import { purgeNamespace, tenantsOf } from "./tenants.js";
import {
  type HostedVersionInfo,
  readVersion,
  redactVersion,
  restoreVersion,
  versionsOf,
} from "./versions.js";

export interface AnthropicMemoryStoreOptions {
  /** The SDK client (`new Anthropic()`); its key and base URL are used as they are. */
  client: Anthropic;
  /** The hosted store (`memstore_...`). */
  memoryStoreId: string;
  /** Where `/memories` lies in the hosted store: `""` (default, its root) or a path such as `/team`. */
  prefix?: string;
  /** Attempts per request after temporary failures (lost connection, 429, 5xx). Default 3. */
  attempts?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });
const NOT_TEXT = "a hosted memory store holds UTF-8 text only; this file is not UTF-8 text";
/** Conditional deletes retried after the file changed under them. */
const DELETE_ATTEMPTS = 10;
/** Path → id entries kept; beyond it the cache starts again, since it is only a hint. */
const MAX_CACHED = 10_000;

type Found = { kind: "file"; memory: Memory } | { kind: "directory" } | null;

/** Shared by a store and its scopes: the requests (one counter) and the path → id cache. */
interface Shared {
  requests: Requests;
  ids: Map<string, string>;
}

/**
 * A `MemoryStore` on a hosted memory store.
 *
 * @example
 * ```ts
 * const store = new AnthropicMemoryStore({ client: new Anthropic(), memoryStoreId: "memstore_..." });
 * ```
 */
export class AnthropicMemoryStore implements MemoryStore {
  readonly backend = "anthropic";
  readonly capabilities: StoreCapabilities = { crossProcessSafe: true, atomicDirectoryRename: false };
  readonly maxFileBytes = HOSTED_MAX_CONTENT_BYTES;
  readonly pathLimits: PathLimits;
  readonly #shared: Shared;
  readonly #ns: Namespace;
  readonly #tenant: string | undefined;

  constructor(options: AnthropicMemoryStoreOptions);
  constructor(options: AnthropicMemoryStoreOptions, shared: Shared, ns: Namespace, tenant: string);
  constructor(options: AnthropicMemoryStoreOptions, shared?: Shared, ns?: Namespace, tenant?: string) {
    if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
    const client = options.client as unknown as { beta?: { memoryStores?: unknown } } | undefined;
    if (typeof client !== "object" || client === null || typeof client.beta?.memoryStores !== "object")
      throw new TypeError("client must be an Anthropic SDK client with beta.memoryStores");
    if (typeof options.memoryStoreId !== "string" || !/^[A-Za-z0-9_-]{1,128}$/.test(options.memoryStoreId))
      throw new TypeError("memoryStoreId must be a memory store id (memstore_...)");
    const attempts = options.attempts ?? 3;
    if (!Number.isInteger(attempts) || attempts < 1)
      throw new TypeError("attempts must be a positive integer");
    this.#shared = shared ?? {
      requests: new Requests(options.client, options.memoryStoreId, attempts),
      ids: new Map(),
    };
    this.#ns = ns ?? new Namespace(checkPrefix(options.prefix));
    this.#tenant = tenant;
    this.pathLimits = { maxDepth: HOSTED_MAX_SEGMENTS - this.#ns.segments, refusesName };
    this.#options = options;
  }

  readonly #options: AnthropicMemoryStoreOptions;

  /** The hosted store's id (`memstore_...`). */
  get memoryStoreId(): string {
    return this.#shared.requests.storeId;
  }

  /** How many HTTP requests this store and its scopes have sent (attempts included). */
  get requestCount(): number {
    return this.#shared.requests.count;
  }

  get #requests(): Requests {
    return this.#shared.requests;
  }

  #remember(memory: { id: string; path: string }): void {
    if (this.#shared.ids.size >= MAX_CACHED) this.#shared.ids.clear();
    this.#shared.ids.set(memory.path, memory.id);
  }

  #forget(storePath: string): void {
    this.#shared.ids.delete(storePath);
  }

  /** The memory at `storePath` with its content, through the cached id; `null` when the cache cannot tell. */
  async #cached(storePath: string, view: "basic" | "full"): Promise<Memory | null> {
    const id = this.#shared.ids.get(storePath);
    if (id === undefined) return null;
    try {
      const memory = await this.#requests.send((o) =>
        this.#requests.memories.retrieve(id, { memory_store_id: this.#requests.storeId, view }, o),
      );
      if (memory.path === storePath) return memory;
    } catch (error) {
      if (!(error instanceof RequestFailure) || error.status !== 404)
        throw toStoreFailure("retrieve", unwrap(error));
    }
    this.#forget(storePath);
    return null;
  }

  /** What is at `path` (a canonical memory path other than `/memories`), from its parent's listing. */
  async #find(path: string): Promise<Found> {
    const storePath = this.#ns.toStore(path);
    const parent = storePath.slice(0, storePath.lastIndexOf("/") + 1);
    let found: Found = null;
    for (const item of await this.#requests.list(parent, 1)) {
      if (item.type === "memory") {
        this.#remember(item);
        if (item.path === storePath) found = { kind: "file", memory: item };
      } else if (item.path === `${storePath}/`) found = { kind: "directory" };
    }
    return found;
  }

  async #retrieve(id: string, view: "basic" | "full"): Promise<Memory | null> {
    try {
      return await this.#requests.send((o) =>
        this.#requests.memories.retrieve(id, { memory_store_id: this.#requests.storeId, view }, o),
      );
    } catch (error) {
      if (error instanceof RequestFailure && error.status === 404) return null;
      throw toStoreFailure("retrieve", unwrap(error));
    }
  }

  #fileData(memory: Memory): FileData {
    return { data: encoder.encode(memory.content ?? ""), version: memory.content_sha256 };
  }

  async read(path: string): Promise<FileData | null> {
    if (path === ROOT) return null;
    const storePath = this.#ns.toStore(path);
    const cached = await this.#cached(storePath, "full");
    if (cached) return this.#fileData(cached);
    const found = await this.#find(path);
    if (found?.kind !== "file") return null;
    const memory = await this.#retrieve(found.memory.id, "full");
    return memory && memory.path === storePath ? this.#fileData(memory) : null;
  }

  async stat(path: string): Promise<Stat | null> {
    if (path === ROOT) return { kind: "directory" };
    const found = await this.#find(path);
    if (found?.kind === "file") return { kind: "file", size: found.memory.content_size_bytes };
    return found;
  }

  /** Every memory below `path` (its whole subtree, one listing followed through its pages). */
  async #below(path: string): Promise<Memory[]> {
    const items = await this.#requests.list(this.#ns.prefixOf(path), 0);
    const memories: Memory[] = [];
    for (const item of items) {
      if (item.type !== "memory") continue;
      this.#remember(item);
      memories.push(item);
    }
    return memories;
  }

  #listing(dir: string, memories: Memory[], depth: number, options?: ListOptions): Listing {
    const files: StoredFile[] = [];
    for (const m of memories) {
      const path = this.#ns.fromStore(m.path);
      if (path !== null && !this.#ns.isBookkeeping(m.path)) files.push({ path, size: m.content_size_bytes });
    }
    return listingFromFiles(dir, files, depth, { countFiles: options?.countFiles === true });
  }

  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    const memories = await this.#below(dir);
    if (memories.length === 0 && dir !== ROOT) return null;
    return this.#listing(dir, memories, depth, options);
  }

  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    if (path === ROOT)
      return { kind: "directory", listing: this.#listing(ROOT, await this.#below(ROOT), depth, options) };
    const storePath = this.#ns.toStore(path);
    const cached = await this.#cached(storePath, "full");
    if (cached) return { kind: "file", file: this.#fileData(cached) };
    const found = await this.#find(path);
    if (found?.kind === "file") {
      const memory = await this.#retrieve(found.memory.id, "full");
      if (memory && memory.path === storePath) return { kind: "file", file: this.#fileData(memory) };
      return null;
    }
    if (found?.kind !== "directory") return null;
    const listing = await this.list(path, depth, options);
    return listing ? { kind: "directory", listing } : null;
  }

  async write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    _context?: ChangeContext,
  ): Promise<{ version: Version }> {
    let text: string;
    try {
      text = decoder.decode(data);
    } catch {
      throw new StoreFailureError(NOT_TEXT);
    }
    if (data.byteLength > HOSTED_MAX_CONTENT_BYTES)
      throw new StoreFailureError(`a hosted memory holds at most ${HOSTED_MAX_CONTENT_BYTES} bytes`);
    const storePath = this.#ns.toStore(path);
    return "ifAbsent" in condition
      ? this.#create(path, storePath, text)
      : this.#replace(path, storePath, text, condition.ifVersion);
  }

  async #create(path: string, storePath: string, text: string): Promise<{ version: Version }> {
    try {
      const memory = await this.#requests.send((o) =>
        this.#requests.memories.create(this.#requests.storeId, { path: storePath, content: text }, o),
      );
      this.#remember(memory);
      return { version: memory.content_sha256 };
    } catch (error) {
      if (!(error instanceof RequestFailure) || error.status !== 409)
        throw this.#writeFailure("create", error);
      const conflict = errorObjectOf(error.cause);
      const at = conflict.conflicting_path;
      if (at === storePath && error.uncertain && conflict.conflicting_memory_id) {
        // An earlier attempt may have created it, its answer lost: our own write is not "already exists".
        const there = await this.#retrieve(conflict.conflicting_memory_id, "basic");
        if (there && there.path === storePath && there.content_sha256 === (await sha256Hex(text))) {
          this.#remember(there);
          return { version: there.content_sha256 };
        }
      }
      throw this.#pathConflict(path, storePath, at);
    }
  }

  /** The typed error for a path conflict with the memory at `at` when writing `storePath`. */
  #pathConflict(path: string, storePath: string, at: string | undefined): Error {
    if (at === undefined || at === "") return new ConflictError(path);
    if (at === storePath || at.startsWith(`${storePath}/`)) return new AlreadyExistsError(path);
    const ancestor = this.#ns.fromStore(at);
    if (storePath.startsWith(`${at}/`) && ancestor !== null && ancestor !== ROOT)
      return new NotADirectoryError(path, ancestor);
    return new StoreFailureError("the hosted store holds a memory at a path above this memory's namespace");
  }

  #writeFailure(operation: string, error: unknown): StoreFailureError {
    const uncertain =
      error instanceof RequestFailure ? error.uncertain || isLost(error.cause) : isLost(error);
    return toStoreFailure(operation, unwrap(error), { mayBeApplied: uncertain });
  }

  async #idOf(path: string, storePath: string): Promise<string | null> {
    const cached = this.#shared.ids.get(storePath);
    if (cached !== undefined) return cached;
    const found = await this.#find(path);
    return found?.kind === "file" ? found.memory.id : null;
  }

  async #replace(
    path: string,
    storePath: string,
    text: string,
    expected: string,
  ): Promise<{ version: Version }> {
    const id = await this.#idOf(path, storePath);
    if (id === null) throw new ConflictError(path);
    try {
      const memory = await this.#requests.send((o) =>
        this.#requests.memories.update(
          id,
          {
            memory_store_id: this.#requests.storeId,
            content: text,
            precondition: { type: "content_sha256", content_sha256: expected },
          },
          o,
        ),
      );
      // The file moved after it was read, with the content read: the edit landed before the rename.
      if (memory.path !== storePath) this.#forget(storePath);
      this.#remember(memory);
      return { version: memory.content_sha256 };
    } catch (error) {
      if (!(error instanceof RequestFailure)) throw error;
      const status = error.status;
      if ((status === 409 || status === 404) && !error.uncertain) {
        this.#forget(storePath);
        throw new ConflictError(path);
      }
      // After a lost answer the API accepts a repeat that finds its own content; any other refusal leaves
      // the outcome unknown (another writer may have changed the file after ours).
      throw this.#writeFailure("update", error);
    }
  }

  async delete(path: string, _context?: ChangeContext): Promise<boolean> {
    const storePath = this.#ns.toStore(path);
    const cached = path === ROOT ? null : await this.#cached(storePath, "basic");
    const found: Found = cached
      ? { kind: "file", memory: cached }
      : path === ROOT
        ? { kind: "directory" }
        : await this.#find(path);
    if (found === null) return false;
    if (found.kind === "file") return this.#deleteMemory(path, found.memory);
    const memories = (await this.#below(path)).filter((m) => !this.#ns.isBookkeeping(m.path));
    for (const memory of memories) await this.#deleteMemory(this.#ns.fromStore(memory.path) ?? path, memory);
    return memories.length > 0 || path === ROOT;
  }

  /** Deletes one memory at the content it was seen with, again at its new content when it changed. */
  async #deleteMemory(path: string, seen: Memory): Promise<boolean> {
    let memory: Memory | null = seen;
    for (let i = 0; i < DELETE_ATTEMPTS && memory; i++) {
      try {
        const current: Memory = memory;
        await this.#requests.send((o) =>
          this.#requests.memories.delete(
            current.id,
            { memory_store_id: this.#requests.storeId, expected_content_sha256: current.content_sha256 },
            o,
          ),
        );
        this.#forget(current.path);
        return true;
      } catch (error) {
        if (!(error instanceof RequestFailure)) throw error;
        if (error.status === 404) {
          this.#forget(memory.path);
          // A lost answer's repeat finds its own delete done.
          return error.uncertain;
        }
        if (error.status !== 409) throw this.#writeFailure("delete", error);
        memory = await this.#retrieve(memory.id, "basic");
        if (memory && this.#ns.fromStore(memory.path) !== path) return false;
      }
    }
    if (memory) throw new ConflictError(path);
    return false;
  }

  async rename(from: string, to: string, _context?: ChangeContext): Promise<void> {
    const fromStore = this.#ns.toStore(from);
    const toStore = this.#ns.toStore(to);
    const found = await this.#find(from);
    if (found === null) {
      // A directory rename interrupted midway leaves its journal: run again, it completes.
      if (await completeRenames(this.#renameContext(), from, to)) return;
      throw new NotFoundError(from);
    }
    if (isSameOrInside(from, to)) throw new AlreadyExistsError(to);
    if (found.kind === "directory") return renameDirectory(this.#renameContext(), from, to);
    try {
      const moved = await this.#requests.send((o) =>
        this.#requests.memories.update(
          found.memory.id,
          { memory_store_id: this.#requests.storeId, path: toStore },
          o,
        ),
      );
      this.#forget(fromStore);
      this.#remember(moved);
    } catch (error) {
      if (error instanceof RequestFailure && error.status === 409)
        throw this.#pathConflict(to, toStore, errorObjectOf(error.cause).conflicting_path);
      if (error instanceof RequestFailure && error.status === 404) throw new NotFoundError(from);
      throw this.#writeFailure("update", error);
    }
  }

  #renameContext() {
    return {
      requests: this.#requests,
      ns: this.#ns,
      find: (path: string) => this.#find(path),
      below: (path: string) => this.#below(path),
      forget: (storePath: string) => this.#forget(storePath),
      remember: (memory: Memory) => this.#remember(memory),
      pathConflict: (path: string, storePath: string, at: string | undefined) =>
        this.#pathConflict(path, storePath, at),
      writeFailure: (operation: string, error: unknown) => this.#writeFailure(operation, error),
    };
  }

  /** Completes every directory rename an interruption left half done. */
  async recover(): Promise<void> {
    await completeRenames(this.#renameContext());
  }

  isReservedName(_name: string): boolean {
    return false;
  }

  scope(tenant: string): AnthropicMemoryStore {
    const id = checkTenant(tenant);
    return new AnthropicMemoryStore(this.#options, this.#shared, this.#ns.tenant(id), id);
  }

  async files(): Promise<StoredFile[]> {
    const out: StoredFile[] = [];
    for (const m of await this.#below(ROOT)) {
      const path = this.#ns.fromStore(m.path);
      if (path !== null && !this.#ns.isBookkeeping(m.path)) out.push({ path, size: m.content_size_bytes });
    }
    return out;
  }

  async usage(): Promise<Usage> {
    const files = await this.files();
    return { files: files.length, bytes: files.reduce((sum, f) => sum + f.size, 0) };
  }

  tenants(options?: TenantsOptions): Promise<TenantPage> {
    return tenantsOf(this.#requests, this.#ns, options);
  }

  purge(options?: PurgeOptions): Promise<PurgeResult> {
    return purgeNamespace(this.#requests, this.#ns, this.#tenant, options, (p) => this.#forget(p));
  }

  /** The kept versions of `path`, newest first (the current content is not one of them). */
  versions(path: string): Promise<HostedVersionInfo[]> {
    return versionsOf(this.#requests, this.#ns.toStore(path), () => this.#current(path));
  }

  /** The bytes of version `id` of `path`; `null` when there is no such version of it. */
  readVersion(path: string, id: string): Promise<Uint8Array | null> {
    return readVersion(this.#requests, this.#ns.toStore(path), id, () => this.#current(path));
  }

  /** Makes version `id` the content of `path` again, as one more update (so it can be undone). */
  restore(path: string, id: string): Promise<{ replacedVersionId: string | undefined }> {
    return restoreVersion(this, this.#requests, this.#ns.toStore(path), path, id, () => this.#current(path));
  }

  /**
   * Redacts version `id` of `path` in the hosted store: its content and path are gone for good. Who
   * redacted it is the credential's actor (`by` cannot be given: the API records it).
   */
  redact(path: string, id: string): Promise<void> {
    return redactVersion(this.#requests, this.#ns.toStore(path), path, id, () => this.#current(path));
  }

  async #current(path: string): Promise<Memory | null> {
    const storePath = this.#ns.toStore(path);
    const cached = await this.#cached(storePath, "basic");
    if (cached) return cached;
    const found = await this.#find(path);
    return found?.kind === "file" ? found.memory : null;
  }

  async check(): Promise<void> {
    await this.#requests.read("retrieve store", (o) =>
      this.#requests.client.beta.memoryStores.retrieve(this.#requests.storeId, {}, o),
    );
    await this.recover();
  }

  async close(): Promise<void> {}
}

const unwrap = (error: unknown): unknown => (error instanceof RequestFailure ? error.cause : error);

/** A connection that failed after the request may have left: its effect is unknown. */
const isLost = (error: unknown): boolean => {
  const name = (error as { name?: unknown } | null)?.name;
  return name === "APIConnectionError" || name === "APIConnectionTimeoutError";
};
