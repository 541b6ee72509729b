/** Opens the store a URL names. */
import { isStoreError, type MemoryStore, ROOT } from "@mem/core";
import { HISTORY_MARKER, HISTORY_NAME, HistoryStore } from "@mem/history";
import { importAdapter } from "./adapter.js";
import { expiryOption, type OpenContext } from "./backend.js";
import { NoStoreError, StoreSetupError } from "./errors.js";
import { KEY_VARIABLE, keyOptions } from "./key.js";
import { backendOf, describeStore, parseStoreUrl, type StoreSpec } from "./parse.js";

export interface OpenStoreOptions {
  /** Where `MEMORY_KEY` and AWS settings are read from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The directory relative `fs:` paths are resolved against. Default `process.cwd()`. */
  cwd?: string;
  /**
   * Files not accessed for this many seconds behave as missing, and `sweep()` removes them (the store's
   * own `expireAfterSeconds`, SPEC §7). Store URLs carry no expiry: a service sets it here. Unset: none.
   */
  expireAfterSeconds?: number;
  /**
   * `false`: a store that does not exist yet (an `fs:` directory that is missing) is not created, and
   * `NoStoreError` is thrown instead. For tools that only read. Default `true`.
   */
  create?: boolean;
  /**
   * The caller only reads: opening writes nothing, key material included, and implies `create: false`.
   * An `encrypted+` URL over a store that was never encrypted answers as a missing store when it is empty
   * (`NoStoreError`) and is refused when it holds plain files. Default `false`.
   */
  readOnly?: boolean;
  /**
   * Keep earlier versions of every file (`HistoryStore`), as `?history` does. Default `false`. Unless
   * `create` is `false`, this makes the store a history store from now on: a marker is written in it
   * (the unscoped store, for a `?tenant=` URL), and every later `openStore` of it, for any tenant, keeps
   * versions too.
   */
  history?: boolean;
  /** Call the store's `check()` before returning it, so that a store that cannot work fails now. */
  check?: boolean;
  /**
   * Look for the bookkeeping of `@mem/history` and `@mem/encrypted` (one `stat` each). Default `true`.
   * `false` opens the store as it is, e.g. to `sweep()` it: on stores that remove expired files on every
   * call, those reads would remove them before `sweep()` could report them. `"unwrapped"`: encrypted
   * files are still refused without their key, but a store holding versions is not wrapped in
   * `HistoryStore`, so its `.mem-history` files are seen as they are (for tools that back up or copy a
   * store whole, versions included).
   */
  bookkeeping?: boolean | "unwrapped";
}

const HISTORY_DIR = `${ROOT}/${HISTORY_NAME}`;
/** Where `@mem/encrypted` keeps its key checks and indexes inside the store it encrypts. */
const ENCRYPTED_DIR = `${ROOT}/.mem-encrypted`;

/**
 * Opens the store a URL names (see `parseStoreUrl` for the forms). `encrypted+` wraps the store in
 * `EncryptedStore` with the key from `MEMORY_KEY`; `?tenant=ID` returns `store.scope(ID)`, whose `close()`
 * also closes the store it came from. A store that already holds earlier versions (a `.mem-history`
 * folder, in the tenant or in the store the tenant belongs to), or any store opened with `?history` or
 * `{ history: true }`, is wrapped in `HistoryStore`, so every change through it keeps a version; opening
 * with history marks the store, so it stays a history store for every later opener and tenant; a store holding encrypted files opened without `encrypted+`
 * is refused rather than served as ciphertext. Throws `StoreUrlError` for a bad URL, `NoStoreError` for
 * a missing store opened with `create: false`, and `StoreSetupError` when the store cannot be set up (no
 * key, adapter not installed, no scopes); no message holds secrets. Adapters are imported only when a
 * URL names them.
 *
 * @example
 * ```ts
 * import { executeCommand } from "@mem/core";
 * import { openStore } from "@mem/open";
 *
 * const store = await openStore("redis://127.0.0.1:6379/notes?tenant=alice");
 * await executeCommand(store, { command: "view", path: "/memories" });
 * await store.close?.();
 * ```
 */
export const openStore = async (
  url: string | StoreSpec,
  options: OpenStoreOptions = {},
): Promise<MemoryStore> => {
  const spec = typeof url === "string" ? parseStoreUrl(url) : url;
  const context: OpenContext = {
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    create: options.readOnly === true ? false : (options.create ?? true),
    ...(options.expireAfterSeconds !== undefined && { expireAfterSeconds: options.expireAfterSeconds }),
  };
  // The key is checked before any connection is made.
  const keys = spec.encrypted ? keyOptions(context.env[KEY_VARIABLE]) : undefined;
  // And the wrapper is loaded before it too: a missing one must not leave a connection open.
  const encryption = keys
    ? await importAdapter({ needed: "encrypted+", name: "@mem/encrypted" }, () => import("@mem/encrypted"))
    : undefined;
  let store = await backendOf(spec.backend).open(spec.backend, context);
  if (keys && encryption) {
    const { EncryptedStore } = encryption;
    const readOnly = options.readOnly === true;
    try {
      await checkEncryptable(store, spec, readOnly);
    } catch (error) {
      await store.close?.().catch(() => undefined);
      throw error;
    }
    // The wrapper needs the inner store's expiry to keep its own bookkeeping files from expiring.
    store = new EncryptedStore(store, { ...keys, ...expiryOption(context), readOnly });
  }
  const whole = store;
  if (spec.tenant !== undefined) {
    store = await scopeTo(store, spec.tenant, describeStore({ ...spec, tenant: undefined }));
  }
  try {
    const history = options.history === true || spec.history === true;
    if (options.bookkeeping === "unwrapped")
      await withBookkeeping(store, undefined, spec, false, false, false);
    else if (options.bookkeeping !== false || history) {
      const enable = history && context.create !== false;
      store = await withBookkeeping(store, whole === store ? undefined : whole, spec, history, enable);
    }
    if (options.check) await store.check?.();
  } catch (error) {
    await store.close?.().catch(() => undefined);
    throw error;
  }
  return store;
};

/**
 * The wrappers whose bookkeeping `store` holds, found with one `stat` of each reserved folder (all at
 * once): `HistoryStore` around a store with versions or history's marker, in itself or in `whole` (the
 * store a tenant's `store` belongs to), or when `history` is asked for; and a refusal of encrypted files
 * opened without their key. `enable`: history's marker is written in the whole store, once.
 */
const withBookkeeping = async (
  store: MemoryStore,
  whole: MemoryStore | undefined,
  spec: StoreSpec,
  history: boolean,
  enable: boolean,
  wrap = true,
): Promise<MemoryStore> => {
  const [versions, marked, encrypted] = await Promise.all([
    history || !wrap ? null : store.stat(HISTORY_DIR),
    history || !wrap || !whole ? null : whole.stat(HISTORY_DIR),
    spec.encrypted ? null : store.stat(ENCRYPTED_DIR),
  ]);
  if (encrypted) {
    throw new StoreSetupError(
      `${describeStore(spec)} holds encrypted memory: open it with an encrypted+ URL and its key in ${KEY_VARIABLE}.`,
    );
  }
  if (!wrap) return store;
  if (enable) await markHistory(whole ?? store);
  if (!history && versions?.kind !== "directory" && marked?.kind !== "directory") return store;
  return new HistoryStore(store);
};

/**
 * An `encrypted+` URL over a store without encryption bookkeeping: encrypting it is a write, so a
 * reader finds no store (nothing is written, not even a key check); and a store (or, with `?tenant=`, a
 * tenant) that holds plain files is never turned into a mix of plain and encrypted ones.
 */
const checkEncryptable = async (inner: MemoryStore, spec: StoreSpec, readOnly: boolean): Promise<void> => {
  if ((await inner.stat(ENCRYPTED_DIR))?.kind === "directory") return;
  // With `?tenant=`, the memory being encrypted is that tenant's: other tenants' plain files stay theirs.
  const subject = spec.tenant !== undefined && inner.scope ? inner.scope(spec.tenant) : inner;
  if (await holdsAnything(subject)) {
    throw new StoreSetupError(
      `${describeStore({ ...spec, encrypted: false })} holds plain (unencrypted) memory: open it without encrypted+, or copy it into a new store with mem copy.`,
    );
  }
  if (readOnly) throw new NoStoreError(describeStore(spec));
};

/** Whether a store holds any file, hidden ones and tenants included. */
const holdsAnything = async (store: MemoryStore): Promise<boolean> => {
  if (store.files) {
    if ((await store.files()).length > 0) return true;
  } else if (((await store.list(ROOT, 1))?.entries.length ?? 0) > 0) return true;
  return store.tenants ? (await store.tenants({ limit: 1 })).tenants.length > 0 : false;
};

/**
 * Writes history's marker in `store` (when it is not there yet): from now on every opener of the store,
 * for every tenant, wraps it in `HistoryStore`, and none misses the first edit.
 */
const markHistory = async (store: MemoryStore): Promise<void> => {
  const at = `${HISTORY_DIR}/${HISTORY_MARKER}`;
  if (await store.stat(at)) return;
  const record = new TextEncoder().encode(JSON.stringify({ since: Date.now() }));
  try {
    await store.write(at, record, { ifAbsent: true });
  } catch (error) {
    if (!isStoreError(error, "ALREADY_EXISTS")) throw error;
  }
};

/**
 * `store.scope(tenant)`, whose `close()` also closes `store`, so callers of `openStore` close one thing.
 * Closes `store` and throws `StoreSetupError` when it has no scopes; `what` describes it for the message.
 */
export const scopeTo = async (store: MemoryStore, tenant: string, what: string): Promise<MemoryStore> => {
  if (!store.scope) {
    await store.close?.();
    throw new StoreSetupError(
      `Store URL: ?tenant= needs a store with tenant scopes, and this one (${what}) has none.`,
    );
  }
  const scope = store.scope(tenant);
  return new Proxy(scope, {
    get(target, property) {
      if (property === "close") {
        return async () => {
          try {
            await target.close?.();
          } finally {
            await store.close?.();
          }
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      // Bound to the scope itself: stores keep private fields a proxy cannot reach.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
};
