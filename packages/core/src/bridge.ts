/**
 * A complete `MemoryStore` from four key-value primitives. Keys are canonical paths (directories are
 * implicit, SPEC §3); the bridge derives listings, sizes, directory renames, usage and tenants from a
 * prefix listing, and the write conditions from put-if-version.
 */
import {
  AlreadyExistsError,
  ConflictError,
  NotADirectoryError,
  NotFoundError,
  StoreFailureError,
} from "./errors.js";
import { isStoreError, safeReason } from "./failure.js";
import { checkOptions } from "./options.js";
import { backoffDelay, sleep } from "./retry.js";
import type {
  FileData,
  Listing,
  ListOptions,
  MemoryStore,
  Stat,
  StoreCapabilities,
  StoredFile,
  Usage,
  Version,
  WriteCondition,
} from "./store.js";
import { checkTenant } from "./tenant.js";
import { ancestorsOf, isSameOrInside, listingFromFilesInSlices, ROOT, rebase } from "./tree.js";

/**
 * What a medium gives `bridgeStore`: bytes under string keys, each with a version that changes whenever
 * they do. A method that cannot reach the medium throws; a `StoreFailureError` keeps its reason, anything
 * else becomes one with a safe reason (never the error's message).
 */
export interface KeyValuePrimitives {
  /** The value and version at `key`, or `null` when nothing is there. */
  get(key: string): Promise<{ value: Uint8Array; version: Version } | null>;
  /**
   * Stores `value` at `key` only if the key's current version is `expected` (`null`: only if the key is
   * absent), in one atomic step. Resolves the new version, or `null` when the condition did not hold.
   */
  put(key: string, value: Uint8Array, expected: Version | null): Promise<Version | null>;
  /** Removes `key` (only at version `expected`, when given). `false` when nothing was removed. */
  delete(key: string, expected?: Version): Promise<boolean>;
  /** Every key starting with `prefix`, with the byte size of its value, in any order. */
  list(prefix: string): Promise<Iterable<{ key: string; size: number }>>;
  /** Optional: releases what the primitives hold; the store's `close()` calls it. */
  close?(): Promise<void>;
}

/** Options of {@link bridgeStore}. */
export interface BridgeStoreOptions {
  /** The medium's name for traces and metrics. */
  backend?: string;
  /** `put` is atomic across processes too (a database or server), not only within this one. Default `false`. */
  crossProcessSafe?: boolean;
}

const PRIMITIVES = ["get", "put", "delete", "list"] as const;
/** Attempts to move one file that keeps changing under a rename before giving up with `ConflictError`. */
const MOVE_ATTEMPTS = 50;

/**
 * Builds a complete `MemoryStore` on `primitives`: the conditional writes, view listings with their
 * sizes, directory renames (file by file: copy, then delete at the copied version, so a concurrent edit is
 * never lost), `usage()`, `files()` and `scope(tenant)` (keys under `/tenants/<id>`), with every problem
 * a typed store error. Renames are not atomic (a crash midway leaves some files at both paths) and
 * quotas are checked through `usage()`, so concurrent writers can overshoot them.
 *
 * @example
 * ```ts
 * import { bridgeStore, executeCommand } from "@mem/core";
 *
 * const entries = new Map<string, { value: Uint8Array; version: string }>();
 * let clock = 0;
 * const store = bridgeStore({
 *   async get(key) {
 *     return entries.get(key) ?? null;
 *   },
 *   async put(key, value, expected) {
 *     if ((entries.get(key)?.version ?? null) !== expected) return null;
 *     const version = String(++clock);
 *     entries.set(key, { value: value.slice(), version });
 *     return version;
 *   },
 *   async delete(key, expected) {
 *     if (expected !== undefined && entries.get(key)?.version !== expected) return false;
 *     return entries.delete(key);
 *   },
 *   async list(prefix) {
 *     return [...entries].filter(([key]) => key.startsWith(prefix)).map(([key, e]) => ({ key, size: e.value.byteLength }));
 *   },
 * });
 * await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "hi\n" });
 * ```
 */
export function bridgeStore(primitives: KeyValuePrimitives, options: BridgeStoreOptions = {}): MemoryStore {
  if (typeof primitives !== "object" || primitives === null) {
    throw new TypeError("bridgeStore: primitives must be an object with get, put, delete and list");
  }
  for (const name of PRIMITIVES) {
    if (typeof primitives[name] !== "function") {
      throw new TypeError(`bridgeStore: primitives.${name} must be a function`);
    }
  }
  const o = checkOptions("bridgeStore", options);
  o.string("backend", { optional: true, nonEmpty: true });
  o.oneOf("crossProcessSafe", [true, false], { optional: true });
  return new BridgeStore(primitives, options, "");
}

class BridgeStore implements MemoryStore {
  readonly capabilities: StoreCapabilities;
  readonly backend: string | undefined;
  readonly #kv: KeyValuePrimitives;
  readonly #options: BridgeStoreOptions;
  /** Prefix of every key of this store: "" at the root, `/tenants/<id>` per scope level. */
  readonly #namespace: string;
  readonly #scopes = new Map<string, BridgeStore>();

  constructor(kv: KeyValuePrimitives, options: BridgeStoreOptions, namespace: string) {
    this.#kv = kv;
    this.#options = options;
    this.#namespace = namespace;
    this.backend = options.backend;
    this.capabilities = { crossProcessSafe: options.crossProcessSafe === true, atomicDirectoryRename: false };
  }

  scope(tenant: string): MemoryStore {
    checkTenant(tenant);
    let scoped = this.#scopes.get(tenant);
    if (!scoped) {
      scoped = new BridgeStore(this.#kv, this.#options, `${this.#namespace}/tenants/${tenant}`);
      this.#scopes.set(tenant, scoped);
    }
    return scoped;
  }

  async read(path: string): Promise<FileData | null> {
    const found = await this.#get(path);
    return found && { data: found.value, version: found.version };
  }

  async stat(path: string): Promise<Stat | null> {
    if (path === ROOT) return { kind: "directory" };
    const found = await this.#filesAt(path);
    const file = found.find((f) => f.path === path);
    if (file) return { kind: "file", size: file.size };
    return found.length > 0 ? { kind: "directory" } : null;
  }

  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    const files = await this.#filesBelow(dir);
    if (files.length === 0 && dir !== ROOT) return null;
    return listingFromFilesInSlices(dir, files, depth, { countFiles: options?.countFiles === true });
  }

  async files(): Promise<StoredFile[]> {
    return this.#filesBelow(ROOT);
  }

  async usage(): Promise<Usage> {
    const files = await this.#filesBelow(ROOT);
    return { files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) };
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    if ("ifVersion" in condition) {
      // A file with that version exists, so its ancestors are directories: one request suffices.
      const version = await this.#put(path, data, condition.ifVersion);
      if (version === null) throw new ConflictError(path);
      return { version };
    }
    const [, below] = await Promise.all([this.#checkAncestors(path), this.#filesBelow(path)]);
    if (below.length > 0) throw new AlreadyExistsError(path);
    const version = await this.#put(path, data, null);
    if (version === null) throw new AlreadyExistsError(path);
    return { version };
  }

  async delete(path: string): Promise<boolean> {
    const targets = await this.#filesAt(path);
    const removed = await Promise.all(targets.map((f) => this.#delete(f.path)));
    return removed.includes(true);
  }

  async rename(from: string, to: string): Promise<void> {
    const moving = await this.#filesAt(from);
    if (moving.length === 0) throw new NotFoundError(from);
    if ((await this.#filesAt(to)).length > 0) throw new AlreadyExistsError(to);
    await this.#checkAncestors(to);
    for (const file of moving) await this.#move(file.path, rebase(file.path, from, to), to);
  }

  async close(): Promise<void> {
    if (this.#namespace === "") await this.#kv.close?.();
  }

  /** Copies one file, then deletes the original at the copied version; a lost race undoes the copy and retries. */
  async #move(from: string, to: string, target: string): Promise<void> {
    for (let attempt = 0; attempt < MOVE_ATTEMPTS; attempt++) {
      const current = await this.#get(from);
      if (!current) return;
      const placed = await this.#put(to, current.value, null);
      if (placed === null) throw new AlreadyExistsError(target);
      if (await this.#delete(from, current.version)) return;
      await this.#delete(to, placed);
      await sleep(backoffDelay(attempt));
    }
    throw new ConflictError(from);
  }

  /** A file where a directory of `path` should be: the one nearest `/memories` is reported. */
  async #checkAncestors(path: string): Promise<void> {
    const ancestors = ancestorsOf(path)
      .filter((a) => a !== ROOT)
      .reverse();
    const found = await Promise.all(ancestors.map((a) => this.#get(a)));
    const file = ancestors.find((_, i) => found[i]);
    if (file !== undefined) throw new NotADirectoryError(path, file);
  }

  /** The file at `path` and every file beneath it. */
  async #filesAt(path: string): Promise<StoredFile[]> {
    return (await this.#listed(path)).filter((f) => isSameOrInside(f.path, path));
  }

  /** Every file beneath directory `dir`. */
  #filesBelow(dir: string): Promise<StoredFile[]> {
    return this.#listed(`${dir}/`);
  }

  async #listed(prefix: string): Promise<StoredFile[]> {
    const listed = await this.#call(false, () => this.#kv.list(this.#namespace + prefix));
    const cut = this.#namespace.length;
    const files: StoredFile[] = [];
    for (const { key, size } of listed) files.push({ path: key.slice(cut), size });
    return files;
  }

  #get(path: string): Promise<{ value: Uint8Array; version: Version } | null> {
    return this.#call(false, () => this.#kv.get(this.#namespace + path));
  }

  #put(path: string, value: Uint8Array, expected: Version | null): Promise<Version | null> {
    return this.#call(true, () => this.#kv.put(this.#namespace + path, value, expected));
  }

  #delete(path: string, expected?: Version): Promise<boolean> {
    return this.#call(true, () => this.#kv.delete(this.#namespace + path, expected));
  }

  /** Runs a primitive; what it throws becomes a `StoreFailureError` (a change may have been applied). */
  async #call<T>(changes: boolean, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isStoreError(error, "STORE_FAILURE")) throw error;
      throw new StoreFailureError(safeReason(error), { cause: error, mayBeApplied: changes });
    }
  }
}
