import { randomBytes } from "node:crypto";
import {
  ConflictError,
  checkOptions,
  checkTenant,
  type Expiry,
  type ExpiryOptions,
  expiryOf,
  type FileData,
  type FileOrListing,
  isListedName,
  isSameOrInside,
  isStoreError,
  type ListEntry,
  type Listing,
  type ListOptions,
  limitListing,
  type MemoryStore,
  NotFoundError,
  type PurgeOptions,
  type PurgeResult,
  pathOf,
  purgeOptions,
  ROOT,
  rebase,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  StoreFailureError,
  type SweepResult,
  segmentsOf,
  type TenantPage,
  type TenantsOptions,
  type Usage,
  updateWithRetry,
  usageOf,
  type Version,
  type WriteCondition,
} from "@mem/core";
import {
  type Cipher,
  IntegrityError,
  integrityError,
  keyIdOf,
  OVERHEAD,
  open,
  plaintextSize,
  seal,
} from "./format.js";
import { checkKdfParams, DEFAULT_KDF, derivePassphraseKeys, type KdfParams } from "./kdf.js";
import { type KeyMaterial, type Keyring, type KeySource, keySources } from "./keys.js";
import { formerPaths, type Move, newMove, parseMove } from "./moves.js";
import { readPathSet, updatePathSet } from "./path-set.js";
import {
  BOOKKEEPING_DIR,
  claimPath,
  isOwnReservedName,
  keyCheckPath,
  RENAME_JOURNAL_PATH,
  UNLISTED_INDEX_PATH,
} from "./reserved.js";
import { loadSodium } from "./sodium.js";

export interface EncryptedStoreOptions extends ExpiryOptions {
  /** One key (id `"default"`): 32 bytes, their base64, or `{ passphrase }`. Give this or `keyring`. */
  key?: KeyMaterial;
  /** Several keys by id; writes use `active`, reads use whichever key a file's header names. */
  keyring?: Keyring;
  /**
   * Bound into every ciphertext next to its path, e.g. a tenant id: ciphertexts copied between stores
   * with different contexts fail to open even under the same key. Must stay the same for the data's life.
   */
  context?: string;
  /** Argon2id cost for passphrase keys; used only when the store's salt is first created. */
  kdf?: KdfParams;
  // Expiry is the inner store's: give the wrapper the inner store's `expireAfterSeconds` and `clock` too,
  // so that it keeps its own bookkeeping files (key checks, salt, indexes) from expiring (see README).
}

/** A scope's link to its parent: the parent's keys, and the context the tenant is bound into. */
const PARENT = Symbol("parent");
type ScopedOptions = EncryptedStoreOptions & { [PARENT]?: { cipher: () => Promise<Cipher> } };

const isBookkeepingPath = (path: string): boolean => segmentsOf(path).some(isOwnReservedName);

export interface RotationOptions {
  /** Stops the rotation between two files; run `rotate()` again to continue where it stopped. */
  signal?: AbortSignal;
}

export interface RotationReport {
  /** Files re-encrypted under the active key by this run. */
  rotated: number;
  /** Files that were already under the active key. */
  current: number;
}

/** Paths are at most 1024 bytes, so no tree is deeper than this. */
const ALL_DEPTHS = 1024;
const MAX_ATTEMPTS = 50;

const isUnlistedPath = (path: string): boolean => !segmentsOf(path).every(isListedName);

/**
 * A journal entry whose source still exists and whose destination never appeared may belong to a rename
 * about to move on another instance; after this long it is taken as abandoned (crashed before the move).
 */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

/**
 * A {@link MemoryStore} that encrypts every file of another store with XChaCha20-Poly1305, binding each
 * ciphertext to its path. Tampered, truncated, moved or foreign ciphertexts fail with
 * `StoreFailureError("integrity check failed: ...")`, which core reports as an error result.
 *
 * @example
 * ```ts
 * import { executeCommand, InMemoryStore } from "@mem/core";
 * import { EncryptedStore } from "@mem/encrypted";
 *
 * const store = new EncryptedStore(new InMemoryStore(), { key: process.env.MEMORY_KEY! });
 * await executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "secret\n" });
 * ```
 */
export class EncryptedStore implements MemoryStore {
  readonly capabilities: StoreCapabilities;
  /** Resolves once libsodium is loaded and the keys are derived and checked. Methods wait for it themselves. */
  readonly ready: Promise<void>;
  /**
   * The atomic edit of {@link MemoryStore.update}: present exactly when the inner store has one, which
   * then decrypts, edits and re-encrypts the file with no other write in between. Without it, core edits
   * through `read` and conditional `write`.
   */
  declare readonly update?: (
    path: string,
    change: (current: Uint8Array) => Uint8Array | null,
  ) => Promise<boolean>;

  readonly #inner: MemoryStore;
  get backend(): string | undefined {
    return this.#inner.backend;
  }
  readonly #sources: readonly KeySource[];
  readonly #context: Uint8Array;
  readonly #kdf: KdfParams;
  readonly #options: EncryptedStoreOptions;
  readonly #parent: { cipher: () => Promise<Cipher> } | undefined;
  readonly #expiry: Expiry | null;
  #refreshedAt = Number.NEGATIVE_INFINITY;
  #cipher: Promise<Cipher> | null = null;
  #closed = false;

  constructor(inner: MemoryStore, options: EncryptedStoreOptions) {
    if (typeof inner?.read !== "function")
      throw new TypeError("EncryptedStore: the inner store must be a MemoryStore");
    const o = checkOptions("EncryptedStore", options);
    o.exactlyOne("key", "keyring");
    o.object("keyring", { optional: true });
    o.string("context", { optional: true });
    o.object("kdf", { optional: true });
    this.#inner = inner;
    this.#options = options;
    this.#parent = (options as ScopedOptions)[PARENT];
    this.#expiry = expiryOf(options);
    this.#sources = keySources(options);
    this.#context = new TextEncoder().encode(options.context ?? "");
    this.#kdf = checkKdfParams(options.kdf ?? DEFAULT_KDF);
    this.capabilities = {
      crossProcessSafe: inner.capabilities?.crossProcessSafe === true,
      atomicDirectoryRename: false,
    };
    if (inner.update) this.update = (path, change) => this.#update(path, change);
    this.ready = this.#ready().then(() => undefined);
    // A failed start is retried by the next call; the rejection is reported there, not as unhandled.
    this.ready.catch(() => {});
  }

  /**
   * The store of `tenant`: the inner store's `scope(tenant)`, encrypted with this store's keys (no key is
   * derived again) and with the tenant bound into every ciphertext's associated data next to the
   * context, so a file copied from one tenant to another fails to open. Throws `TypeError` for an invalid
   * tenant id, or when the inner store has no `scope`. Closing a scope keeps the parent's keys.
   */
  scope(tenant: string): EncryptedStore {
    checkTenant(tenant);
    if (!this.#inner.scope) throw new TypeError("EncryptedStore.scope: the inner store has no scope()");
    const options: ScopedOptions = {
      ...this.#options,
      // A NUL never occurs in a tenant id, so (context, tenant) pairs map to distinct contexts.
      context: `${this.#options.context ?? ""}\u0000${tenant}`,
      [PARENT]: { cipher: () => this.#ready() },
    };
    return new EncryptedStore(this.#inner.scope(tenant), options);
  }

  /**
   * Plaintext files and bytes: the inner store's usage less this wrapper's bookkeeping files and the
   * fixed overhead of every ciphertext (no file is read).
   */
  async usage(): Promise<Usage> {
    await this.#ready();
    const [inner, bookkeeping] = await Promise.all([usageOf(this.#inner), this.#bookkeeping()]);
    const files = inner.files - bookkeeping.files;
    return { files, bytes: inner.bytes - bookkeeping.bytes - files * OVERHEAD };
  }

  /**
   * The inner store's tenants. Only ids and last access are passed on: the inner store's files and bytes
   * are ciphertexts and this wrapper's bookkeeping, which no listing can correct without reading each scope.
   */
  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    if (!this.#inner.tenants) throw new TypeError("EncryptedStore.tenants: the inner store has no tenants()");
    const page = await this.#inner.tenants(options);
    const tenants = page.tenants.map(({ id, lastAccess }) =>
      lastAccess === undefined ? { id } : { id, lastAccess },
    );
    return page.next === undefined ? { tenants } : { tenants, next: page.next };
  }

  /**
   * The inner scope's purge: ciphertexts, this wrapper's bookkeeping and nested tenants all go. Reported
   * in plaintext terms (bookkeeping and the ciphertext overhead left out). Keys are the application's and
   * are not touched: a tenant's data is unreadable once its ciphertexts are gone, whoever holds the key.
   */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    if (!this.#inner.purge) throw new TypeError("EncryptedStore.purge: the inner store has no purge()");
    purgeOptions(options);
    const bookkeeping = await this.#bookkeeping();
    const removed = await this.#inner.purge(options);
    const files = Math.max(0, removed.files - bookkeeping.files);
    return {
      ...removed,
      files,
      bytes: Math.max(0, removed.bytes - bookkeeping.bytes - files * OVERHEAD),
    };
  }

  /** The inner store's sweep, reported in plaintext terms (this wrapper's own files left out). */
  async sweep(): Promise<SweepResult> {
    await this.#ready();
    const swept = (await this.#inner.sweep?.()) ?? { paths: [], bytes: 0 };
    return {
      paths: swept.paths.filter((p) => !isBookkeepingPath(p)),
      bytes: Math.max(0, swept.bytes - swept.paths.length * OVERHEAD),
    };
  }

  /**
   * Fails fast when the inner store cannot work (its own `check()`), or when a key does not match the
   * one this store recorded under its id, or a passphrase key cannot be derived.
   */
  async check(): Promise<void> {
    await this.#inner.check?.();
    await this.#ready();
  }

  /** This wrapper's own files in the inner store, with their stored sizes. */
  async #bookkeeping(): Promise<Usage> {
    const listing = await this.#inner.list(BOOKKEEPING_DIR, ALL_DEPTHS);
    const files = listing?.entries.filter((e) => e.kind === "file") ?? [];
    return { files: files.length, bytes: files.reduce((n, e) => n + e.size, 0) };
  }

  /**
   * With expiry, reads the wrapper's bookkeeping files (an access) once per quarter of the expiry limit
   * while the store is in use, so they expire at most a quarter of the limit before its last file.
   */
  async #refreshBookkeeping(): Promise<void> {
    const expiry = this.#expiry;
    if (!expiry) return;
    const now = expiry.now();
    if (now - this.#refreshedAt < expiry.limitMs / 4) return;
    this.#refreshedAt = now;
    const listing = await this.#inner.list(BOOKKEEPING_DIR, ALL_DEPTHS);
    for (const entry of listing?.entries ?? []) if (entry.kind === "file") await this.#inner.read(entry.path);
  }

  async read(path: string): Promise<FileData | null> {
    const cipher = await this.#ready();
    await this.#refreshBookkeeping();
    const file = await this.#inner.read(path);
    return file && this.#decrypted(cipher, file, path);
  }

  async #decrypted(cipher: Cipher, file: FileData, path: string): Promise<FileData> {
    const data = await this.#open(cipher, file.data, path);
    // The inner store may compute the version only when asked (FsStore hashes the bytes); views never ask.
    return {
      data,
      get version() {
        return file.version;
      },
    };
  }

  async stat(path: string): Promise<Stat | null> {
    await this.#ready();
    const stat = await this.#inner.stat(path);
    if (stat?.kind !== "file") return stat;
    return { kind: "file", size: sizeOf(path, stat.size) };
  }

  /**
   * Sizes come from ciphertext sizes less the fixed overhead of each file. When the inner store counts
   * the files beneath each directory (`countFiles`, as every built-in store does), a directory's size is
   * its ciphertext size less that many overheads, and the inner store lists only what view shows;
   * otherwise this asks for the whole subtree and adds up the files.
   */
  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    await this.#ready();
    const shown = await this.#inner.list(dir, depth, { ...options, countFiles: true });
    return shown && this.#plaintext(dir, depth, shown, options);
  }

  /**
   * `shown`, an inner listing asked with `countFiles`, with plaintext sizes: from its file counts when it
   * has them, otherwise from the whole subtree, listed again.
   */
  async #plaintext(
    dir: string,
    depth: number,
    shown: Listing,
    options: ListOptions | undefined,
  ): Promise<Listing | null> {
    const counted =
      shown.files !== undefined && shown.entries.every((e) => e.kind === "file" || e.files !== undefined);
    return counted ? this.#plaintextListing(shown, options) : this.#listFromSubtree(dir, depth, options);
  }

  async #listFromSubtree(
    dir: string,
    depth: number,
    options: ListOptions | undefined,
  ): Promise<Listing | null> {
    const deep = await this.#inner.list(dir, ALL_DEPTHS);
    if (!deep) return null;
    return limitListing(dir, this.#plaintextFromSubtree(dir, deep, depth), options?.limit);
  }

  /**
   * A view in one call of the inner store when it has `readOrList`: the decrypted file, or the listing
   * with plaintext sizes. Without it, `read` then `list`, as core would do.
   */
  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    if (!this.#inner.readOrList) {
      const file = await this.read(path);
      if (file) return { kind: "file", file };
      const listing = await this.list(path, depth, options);
      return listing && { kind: "directory", listing };
    }
    const cipher = await this.#ready();
    await this.#refreshBookkeeping();
    const found = await this.#inner.readOrList(path, depth, { ...options, countFiles: true });
    if (!found) return null;
    if (found.kind === "file") return { kind: "file", file: await this.#decrypted(cipher, found.file, path) };
    const listing = await this.#plaintext(path, depth, found.listing, options);
    return listing && { kind: "directory", listing };
  }

  #plaintextListing(shown: Listing, options: ListOptions | undefined): Listing {
    const lessOverheads = (size: number, files: number) => Math.max(0, size - files * OVERHEAD);
    const entries = shown.entries.map((entry): ListEntry => {
      const size =
        entry.kind === "file" ? sizeOf(entry.path, entry.size) : lessOverheads(entry.size, entry.files ?? 0);
      const plain: ListEntry = { path: entry.path, kind: entry.kind, size, depth: entry.depth };
      if (options?.countFiles && entry.files !== undefined) plain.files = entry.files;
      return plain;
    });
    const listing: Listing = { size: lessOverheads(shown.size, shown.files ?? 0), entries };
    if (shown.omitted !== undefined) listing.omitted = shown.omitted;
    if (options?.countFiles) listing.files = shown.files ?? 0;
    return listing;
  }

  #plaintextFromSubtree(dir: string, deep: Listing, depth: number): Listing {
    const base = segmentsOf(dir);
    const sizes = new Map<string, number>();
    let total = 0;
    for (const entry of deep.entries) {
      if (entry.kind !== "file") continue;
      const size = sizeOf(entry.path, entry.size);
      total += size;
      sizes.set(entry.path, size);
      const segments = segmentsOf(entry.path);
      for (let d = 1; d <= depth && base.length + d < segments.length; d++) {
        const ancestor = pathOf(segments.slice(0, base.length + d));
        sizes.set(ancestor, (sizes.get(ancestor) ?? 0) + size);
      }
    }
    const entries = deep.entries
      .filter((entry) => entry.depth <= depth)
      .map((entry) => ({
        path: entry.path,
        kind: entry.kind,
        size: sizes.get(entry.path) ?? 0,
        depth: entry.depth,
      }));
    return { size: total, entries };
  }

  /**
   * Every file written through this wrapper, hidden ones included (from the unlisted-file index), with
   * plaintext sizes; the wrapper's bookkeeping is left out.
   */
  async files(): Promise<StoredFile[]> {
    const cipher = await this.#ready();
    const files: StoredFile[] = [];
    for (const path of await this.#filesBeneath(cipher, ROOT)) {
      const stat = await this.#inner.stat(path);
      if (stat?.kind === "file") files.push({ path, size: Math.max(0, stat.size - OVERHEAD) });
    }
    return files;
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    const cipher = await this.#ready();
    await this.#refreshBookkeeping();
    if (isUnlistedPath(path)) await this.#recordUnlisted(cipher, [path]);
    return this.#inner.write(path, seal(cipher, data, path), condition);
  }

  async delete(path: string): Promise<boolean> {
    const cipher = await this.#ready();
    const deleted = await this.#inner.delete(path);
    await this.#forgetUnlisted(cipher, path);
    return deleted;
  }

  /**
   * Ciphertexts are bound to their paths, so moved files must be re-encrypted.
   *
   * A file is copied: its plaintext is re-encrypted for `to` and written there (`ifAbsent`), then the inner
   * store moves the source to a fresh hidden name next to it, which only one of two concurrent renames of
   * the file can do (the other gets `NotFoundError` and removes its copy), then that parked source is
   * deleted. An edit that reached the source after the copy is carried over. No ciphertext is ever
   * readable at a path it was not written for, and a crash in between leaves both files, never none.
   *
   * A directory is journaled first, then the inner store moves it (atomically where it can), then each
   * moved file is re-encrypted in place for its new path and the journal entry is cleared. Until then a
   * moved file opens under the path the journal says it came from, so readers never see a failure, and an
   * interrupted rename is finished by `recover()` (run by every new instance and before every rename).
   */
  async rename(from: string, to: string): Promise<void> {
    const cipher = await this.#ready();
    await this.#refreshBookkeeping();
    await this.#recover(cipher).catch(() => {});
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const file = await this.#inner.read(from);
      if (file) {
        await this.#renameFile(cipher, from, to, file);
        if (isUnlistedPath(from)) await this.#forgetUnlisted(cipher, from);
        return;
      }
      const stat = await this.#inner.stat(from);
      if (!stat) throw new NotFoundError(from);
      // A file that appeared since the read is read again.
      if (stat.kind === "directory") return this.#renameDirectory(cipher, from, to);
    }
    throw new ConflictError(from);
  }

  async #renameFile(cipher: Cipher, from: string, to: string, file: FileData): Promise<void> {
    const plain = await this.#open(cipher, file.data, from);
    if (isUnlistedPath(to)) await this.#recordUnlisted(cipher, [to]);
    const copy = await this.#inner.write(to, seal(cipher, plain, to), { ifAbsent: true });
    const claim = claimPath(from);
    try {
      await this.#inner.rename(from, claim);
    } catch (error) {
      // Another rename or a delete took the source first: this rename never happened.
      if (isStoreError(error, "NOT_FOUND")) await this.#inner.delete(to);
      throw error;
    }
    const claimed = await this.#inner.read(claim);
    if (claimed && !sameBytes(claimed.data, file.data)) {
      const latest = await this.#open(cipher, claimed.data, from);
      try {
        await this.#inner.write(to, seal(cipher, latest, to), { ifVersion: copy.version });
      } catch (error) {
        if (!isStoreError(error, "CONFLICT")) throw error;
        // Both paths were edited while the rename ran; losing neither edit beats finishing the move.
        await this.#inner.rename(claim, from);
        throw new StoreFailureError(`${from} and ${to} were both edited during the rename; both were kept`);
      }
    }
    await this.#inner.delete(claim);
  }

  async #renameDirectory(cipher: Cipher, from: string, to: string): Promise<void> {
    const moving = await this.#filesBeneath(cipher, from);
    // A file that cannot be opened (tampered, or under a key the keyring lacks) would be stranded at its
    // new path, bound to the old one; refuse before anything moves.
    for (const path of moving) {
      const file = await this.#inner.read(path);
      if (!file) continue;
      try {
        await this.#open(cipher, file.data, path);
      } catch (error) {
        if (error instanceof IntegrityError) throw integrityError(`${path}: ${error.detail}`);
        throw error;
      }
    }
    // Hidden files keep their place in the unlisted index under their new paths.
    await this.#recordUnlisted(cipher, moving.map((p) => rebase(p, from, to)).filter(isUnlistedPath));
    const move = newMove(from, to, randomBytes(12).toString("hex"));
    await updatePathSet(this.#inner, cipher, RENAME_JOURNAL_PATH, { add: [move.entry] });
    try {
      await this.#inner.rename(from, to);
    } catch (error) {
      // A refused rename moved nothing; after an outage, files may have moved, so recovery keeps the entry.
      if (!isStoreError(error, "STORE_FAILURE")) {
        await updatePathSet(this.#inner, cipher, RENAME_JOURNAL_PATH, { remove: [move.entry] });
      }
      throw error;
    }
    await this.#finishMove(cipher, move);
    if (moving.some(isUnlistedPath)) await this.#forgetUnlisted(cipher, from);
  }

  /**
   * Decrypts inside the inner store's atomic update and re-encrypts the result for the same path with a
   * fresh nonce and the active key. A file still bound to a former path (a directory rename in progress)
   * needs the journal, which cannot be read inside the synchronous change: that case writes nothing, reads
   * the journal and runs the update again.
   */
  async #update(path: string, change: (current: Uint8Array) => Uint8Array | null): Promise<boolean> {
    const cipher = await this.#ready();
    await this.#refreshBookkeeping();
    const inner = this.#inner;
    let moves: readonly Move[] | null = null;
    for (;;) {
      const known = moves;
      let needsJournal = false;
      const found = await inner.update!(path, (data) => {
        // An inner store may call this again on a retry; only the last call counts.
        needsJournal = false;
        let plain: Uint8Array;
        try {
          plain = known ? openMoved(cipher, data, path, known) : open(cipher, data, path);
        } catch (error) {
          if (known || !(error instanceof IntegrityError)) throw error;
          needsJournal = true;
          return null;
        }
        const next = change(plain);
        return next === null ? null : seal(cipher, next, path);
      });
      if (!needsJournal) return found;
      moves = await this.#pendingMoves(cipher);
    }
  }

  /**
   * Finishes directory renames that a crash or outage interrupted, re-encrypting their files for their
   * new paths. Returns how many it finished. New instances and every `rename` run this on their own,
   * ignoring its failures; call it directly to see them.
   */
  async recover(): Promise<number> {
    return this.#recover(await this.#ready());
  }

  /**
   * Re-encrypts every file under the active key. Each file switches atomically, so files stay readable
   * throughout (the keyring must keep the old keys until this completes), and an interrupted run is
   * finished by running it again.
   *
   * @example
   * ```ts
   * const store = new EncryptedStore(inner, { keyring: { keys: { k1: oldKey, k2: newKey }, active: "k2" } });
   * await store.rotate(); // then k1 can leave the keyring
   * ```
   */
  async rotate(options: RotationOptions = {}): Promise<RotationReport> {
    const cipher = await this.#ready();
    const report: RotationReport = { rotated: 0, current: 0 };
    await this.#recover(cipher);
    const files = [...(await this.#filesBeneath(cipher, ROOT)), UNLISTED_INDEX_PATH, RENAME_JOURNAL_PATH];
    for (const path of files) {
      options.signal?.throwIfAborted();
      const outcome = await this.#rotateFile(cipher, path);
      if (outcome !== "missing") report[outcome]++;
    }
    return report;
  }

  isReservedName(name: string): boolean {
    return isOwnReservedName(name) || (this.#inner.isReservedName?.(name) ?? false);
  }

  /** Forgets the keys (their bytes are zeroed) and closes the inner store. */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#cipher;
    this.#cipher = null;
    const cipher = await pending?.catch(() => null);
    // A scope shares its parent's keys: only the parent zeroes them.
    if (cipher && !this.#parent) {
      cipher.closed = true;
      for (const key of cipher.keys.values()) cipher.sodium.memzero(key);
    }
    for (const source of this.#sources) if ("bytes" in source) source.bytes.fill(0);
    await this.#inner.close?.();
  }

  #ready(): Promise<Cipher> {
    if (this.#closed) return Promise.reject(new StoreFailureError("the encrypted store is closed"));
    if (!this.#cipher) {
      const attempt = this.#start();
      this.#cipher = attempt;
      attempt.catch(() => {
        if (this.#cipher === attempt) this.#cipher = null;
      });
    }
    return this.#cipher;
  }

  async #start(): Promise<Cipher> {
    if (this.#parent) {
      // The parent's cipher with this scope's context; `closed` and the keys stay the parent's.
      const cipher: Cipher = Object.create(await this.#parent.cipher(), {
        context: { value: this.#context, enumerable: true },
      });
      await this.#recover(cipher).catch(() => {});
      return cipher;
    }
    const sodium = await loadSodium();
    const passphrases = this.#sources.flatMap((s) => ("passphrase" in s ? [s] : []));
    const derived = await derivePassphraseKeys(this.#inner, passphrases, this.#kdf, (n) =>
      Uint8Array.from(randomBytes(n)),
    );
    const keys = new Map(
      this.#sources.map((s) => [s.id, "bytes" in s ? Uint8Array.from(s.bytes) : derived.get(s.id)!]),
    );
    const cipher: Cipher = {
      sodium,
      context: this.#context,
      keys,
      activeId: this.#sources[0]!.id,
      closed: this.#closed,
    };
    for (const { id } of this.#sources) await this.#checkKey(cipher, id);
    await this.#recover(cipher).catch(() => {});
    return cipher;
  }

  /**
   * Each key id gets a small check file the first time it is used, so a wrong key or passphrase under a
   * known id is refused at start instead of silently mixing keys in one store.
   */
  async #checkKey(cipher: Cipher, id: string): Promise<void> {
    const path = keyCheckPath(id);
    await updateWithRetry(this.#inner, path, (existing) => {
      if (!existing) return seal(cipher, new Uint8Array(0), path, id);
      try {
        if (keyIdOf(existing.data) === id && open(cipher, existing.data, path).length === 0) return null;
      } catch {
        // reported below without details that could help guess the key
      }
      throw integrityError(`key "${id}" does not match the key this store recorded under that id`);
    });
  }

  /** Every file beneath `dir` written through this wrapper, hidden ones included. */
  async #filesBeneath(cipher: Cipher, dir: string): Promise<string[]> {
    const listing = await this.#inner.list(dir, ALL_DEPTHS);
    const listed = listing?.entries.filter((e) => e.kind === "file").map((e) => e.path) ?? [];
    const unlisted = (await readPathSet(this.#inner, cipher, UNLISTED_INDEX_PATH)).filter(
      (p) => p !== dir && isSameOrInside(p, dir),
    );
    return [...new Set([...listed, ...unlisted])];
  }

  async #recordUnlisted(cipher: Cipher, paths: readonly string[]): Promise<void> {
    if (paths.length > 0) await updatePathSet(this.#inner, cipher, UNLISTED_INDEX_PATH, { add: paths });
  }

  /**
   * Removes the index entries at or beneath `path` once its files are gone (deleted or moved away), so
   * the index holds no more than the hidden files that exist. A file written there again meanwhile (its
   * writer recorded it before our removal) is found by the check that follows and put back.
   */
  async #forgetUnlisted(cipher: Cipher, path: string): Promise<void> {
    const removed = await updatePathSet(this.#inner, cipher, UNLISTED_INDEX_PATH, { removeBeneath: [path] });
    const back: string[] = [];
    for (const p of removed) if (await this.#inner.stat(p)) back.push(p);
    await this.#recordUnlisted(cipher, back);
  }

  async #pendingMoves(cipher: Cipher): Promise<Move[]> {
    const entries = await readPathSet(this.#inner, cipher, RENAME_JOURNAL_PATH);
    return entries.flatMap((entry) => parseMove(entry) ?? []);
  }

  /** Opens a ciphertext found at `path`, or at a path a pending rename moved it from. */
  async #open(cipher: Cipher, data: Uint8Array, path: string, moves?: readonly Move[]): Promise<Uint8Array> {
    try {
      return open(cipher, data, path);
    } catch (error) {
      if (!(error instanceof IntegrityError)) throw error;
      return openMoved(cipher, data, path, moves ?? (await this.#pendingMoves(cipher)));
    }
  }

  /** Re-encrypts every moved file for its new path, then clears the journal entry. */
  async #finishMove(cipher: Cipher, move: Move): Promise<void> {
    // This move counts even if a recovering instance has already cleared its entry.
    const moves = [move, ...(await this.#pendingMoves(cipher)).filter((m) => m.entry !== move.entry)];
    for (const path of await this.#filesBeneathOrAt(cipher, move.to)) await this.#rebind(cipher, path, moves);
    await updatePathSet(this.#inner, cipher, RENAME_JOURNAL_PATH, { remove: [move.entry] });
  }

  /**
   * Finishes each journaled rename whose source is gone (the inner move happened). While the source
   * still exists the rename may be in flight elsewhere, or cut off inside a non-atomic inner rename:
   * files already at the destination are re-encrypted and the entry stays. An entry whose destination
   * never appeared is dropped once old enough to be abandoned, so old-path ciphertexts stop opening there.
   */
  async #recover(cipher: Cipher): Promise<number> {
    let finished = 0;
    for (const move of await this.#pendingMoves(cipher)) {
      if (!(await this.#inner.stat(move.from))) {
        await this.#finishMove(cipher, move);
        finished++;
      } else if (await this.#inner.stat(move.to)) {
        const moves = await this.#pendingMoves(cipher);
        for (const path of await this.#filesBeneathOrAt(cipher, move.to))
          await this.#rebind(cipher, path, moves);
      } else if (Date.now() - move.startedAt > ABANDONED_AFTER_MS) {
        await updatePathSet(this.#inner, cipher, RENAME_JOURNAL_PATH, { remove: [move.entry] });
      }
    }
    return finished;
  }

  async #filesBeneathOrAt(cipher: Cipher, path: string): Promise<string[]> {
    const stat = await this.#inner.stat(path);
    return stat?.kind === "file" ? [path] : stat ? this.#filesBeneath(cipher, path) : [];
  }

  /**
   * Re-encrypts the file at `path` for that path if it is still bound to a former one. A file that
   * opens nowhere (tampered, or not written through this wrapper) is left as it is: reads report it.
   */
  async #rebind(cipher: Cipher, path: string, moves: readonly Move[]): Promise<void> {
    await updateWithRetry(this.#inner, path, async (file) => {
      if (!file) return null;
      try {
        open(cipher, file.data, path);
        return null;
      } catch {
        try {
          return seal(cipher, await this.#open(cipher, file.data, path, moves), path);
        } catch (error) {
          if (error instanceof IntegrityError) return null;
          throw error;
        }
      }
    });
  }

  async #rotateFile(cipher: Cipher, path: string): Promise<"rotated" | "current" | "missing"> {
    let outcome: "rotated" | "current" | "missing" = "missing";
    await updateWithRetry(this.#inner, path, async (file) => {
      outcome = !file ? "missing" : keyIdOf(file.data) === cipher.activeId ? "current" : "rotated";
      if (!file || outcome === "current") return null;
      return seal(cipher, await this.#open(cipher, file.data, path), path);
    });
    return outcome;
  }
}

/** Opens a ciphertext found at `path`, or at a path one of `moves` moved it from. */
const openMoved = (cipher: Cipher, data: Uint8Array, path: string, moves: readonly Move[]): Uint8Array => {
  try {
    return open(cipher, data, path);
  } catch (error) {
    if (!(error instanceof IntegrityError)) throw error;
    for (const former of formerPaths(path, moves)) {
      try {
        return open(cipher, data, former);
      } catch {
        // try the next candidate; the first error is the one worth reporting
      }
    }
    throw error;
  }
};

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(b);

const sizeOf = (path: string, size: number): number => {
  try {
    return plaintextSize(size);
  } catch {
    throw integrityError(`${path} is shorter than any encrypted file`);
  }
};
