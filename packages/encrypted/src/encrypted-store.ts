import {
  checkOptions,
  checkTenant,
  type Expiry,
  type ExpiryOptions,
  expiryOf,
  type FileData,
  type FileOrListing,
  type Listing,
  type ListOptions,
  limitListing,
  type MemoryStore,
  type PurgeOptions,
  type PurgeResult,
  purgeOptions,
  ROOT,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  StoreFailureError,
  type SweepResult,
  segmentsOf,
  type TenantPage,
  type TenantsOptions,
  type Usage,
  usageOf,
  type Version,
  type WriteCondition,
} from "@mem/core";
import { type Cipher, IntegrityError, OVERHEAD, open, seal } from "./format.js";
import { checkKdfParams, DEFAULT_KDF, type KdfParams } from "./kdf.js";
import { type KeyMaterial, type Keyring, type KeySource, keySources } from "./keys.js";
import type { Move } from "./moves.js";
import { openAnywhere, openMoved, pendingMoves, recoverMoves } from "./recovery.js";
import { renamePath } from "./rename.js";
import { BOOKKEEPING_DIR, isOwnReservedName } from "./reserved.js";
import { type RotationOptions, type RotationReport, rotateAll } from "./rotation.js";
import { plaintextFromSubtree, plaintextListing, sizeOf } from "./sizes.js";
import { startCipher } from "./startup.js";
import { ALL_DEPTHS, filesBeneath, forgetUnlisted, isUnlistedPath, recordUnlisted } from "./unlisted.js";

export type { RotationOptions, RotationReport } from "./rotation.js";

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
  /**
   * For callers that only read: starting writes nothing (no salt, no key check, no completion of an
   * interrupted rename), so a wrong key leaves no trace. A key whose id the store has a record of must
   * still match it. Default `false`.
   */
  readOnly?: boolean;
  // Expiry is the inner store's: give the wrapper the inner store's `expireAfterSeconds` and `clock` too,
  // so that it keeps its own bookkeeping files (key checks, salt, indexes) from expiring (see README).
}

/** A scope's link to its parent: the parent's keys, and the context the tenant is bound into. */
const PARENT = Symbol("parent");
type ScopedOptions = EncryptedStoreOptions & { [PARENT]?: { cipher: () => Promise<Cipher> } };

const isBookkeepingPath = (path: string): boolean => segmentsOf(path).some(isOwnReservedName);

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
    o.oneOf("readOnly", [true, false], { optional: true });
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
    const data = await openAnywhere(this.#inner, cipher, file.data, path);
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
    return counted ? plaintextListing(shown, options) : this.#listFromSubtree(dir, depth, options);
  }

  async #listFromSubtree(
    dir: string,
    depth: number,
    options: ListOptions | undefined,
  ): Promise<Listing | null> {
    const deep = await this.#inner.list(dir, ALL_DEPTHS);
    if (!deep) return null;
    return limitListing(dir, plaintextFromSubtree(dir, deep, depth), options?.limit);
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

  /**
   * Every file written through this wrapper, hidden ones included (from the unlisted-file index), with
   * plaintext sizes; the wrapper's bookkeeping is left out.
   */
  async files(): Promise<StoredFile[]> {
    const cipher = await this.#ready();
    const files: StoredFile[] = [];
    for (const path of await filesBeneath(this.#inner, cipher, ROOT)) {
      const stat = await this.#inner.stat(path);
      if (stat?.kind === "file") files.push({ path, size: Math.max(0, stat.size - OVERHEAD) });
    }
    return files;
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    const cipher = await this.#ready();
    await this.#refreshBookkeeping();
    if (isUnlistedPath(path)) await recordUnlisted(this.#inner, cipher, [path]);
    return this.#inner.write(path, seal(cipher, data, path), condition);
  }

  async delete(path: string): Promise<boolean> {
    const cipher = await this.#ready();
    const deleted = await this.#inner.delete(path);
    await forgetUnlisted(this.#inner, cipher, path);
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
    await recoverMoves(this.#inner, cipher).catch(() => {});
    await renamePath(this.#inner, cipher, from, to);
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
      moves = await pendingMoves(this.#inner, cipher);
    }
  }

  /**
   * Finishes directory renames that a crash or outage interrupted, re-encrypting their files for their
   * new paths. Returns how many it finished. New instances and every `rename` run this on their own,
   * ignoring its failures; call it directly to see them.
   */
  async recover(): Promise<number> {
    return recoverMoves(this.#inner, await this.#ready());
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
    return rotateAll(this.#inner, cipher, options);
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
      if (this.#options.readOnly !== true) await recoverMoves(this.#inner, cipher).catch(() => {});
      return cipher;
    }
    const readOnly = this.#options.readOnly === true;
    const cipher = await startCipher(
      this.#inner,
      this.#sources,
      this.#kdf,
      this.#context,
      this.#closed,
      readOnly,
    );
    if (!readOnly) await recoverMoves(this.#inner, cipher).catch(() => {});
    return cipher;
  }
}
