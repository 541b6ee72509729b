/** `S3Store`: the memory directory as objects in an S3 bucket. */
import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import {
  AlreadyExistsError,
  ancestorsOf,
  ConflictError,
  checkOptions,
  checkTenant,
  type ExpiryOptions,
  expiryOf,
  type FileData,
  type FileOrListing,
  isSameOrInside,
  isStoreError,
  type Listing,
  type ListOptions,
  listingFromFiles,
  type MemoryStore,
  NotADirectoryError,
  NotFoundError,
  nameOf,
  type PurgeOptions,
  type PurgeResult,
  purgeOptions,
  ROOT,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  StoreFailureError,
  type SweepResult,
  sleep,
  type TenantPage,
  type TenantsOptions,
  tenantPageOptions,
  type Usage,
  unscopedPurgeError,
  type Version,
  type WriteCondition,
} from "@mem/core";
import { AccessIndex } from "./access-index.js";
import { Bucket, type ObjectSummary } from "./bucket.js";
import { conditionsOf, missingConditions, staleProbes, unsafeServerFailure } from "./conditions.js";
import { KeySpace, RESERVED_NAMES, TENANTS_NAME } from "./keys.js";
import { RenameJournal } from "./rename-journal.js";
import { listTenants, purgePrefix } from "./tenants.js";

interface S3StoreCommonOptions extends ExpiryOptions {
  /** The bucket holding the memory directory. */
  bucket: string;
  /**
   * Prepended to every key; empty, or ending with `/` (e.g. `tenants/42/`). Give each tenant its own
   * prefix, and never one that starts with another tenant's prefix.
   */
  prefix?: string;
  /** Copies running at once during a directory rename; default 8. */
  copyConcurrency?: number;
  /**
   * With `expireAfterSeconds`: a view records its access in the store's access-time index only when the
   * recorded time is at least this old, so files expire at most this much later than the limit, never
   * earlier. Default 60.
   */
  accessResolutionSeconds?: number;
  /**
   * Declares that only this store writes its prefix (one process, one `S3Store`). Needed for servers that
   * do not enforce conditional writes (such as s3rver): the store then checks conditions itself, per key
   * in this process, and `capabilities.crossProcessSafe` is `false`. Default `false`: on such a server
   * every write is refused with a reason that names the missing condition.
   */
  singleWriter?: boolean;
}

export type S3StoreOptions = S3StoreCommonOptions &
  (
    | {
        /** A client you own: the store never destroys it. */
        client: S3Client;
        clientConfig?: never;
      }
    | {
        /** Configuration for a client the store creates, owns and destroys in `close()`. */
        clientConfig: S3ClientConfig;
        client?: never;
      }
  );

/**
 * Retries with backoff on 5xx and throttling (the SDK's standard strategy) and bounded waits, for
 * clients the store creates. Anything given in `clientConfig` wins; handler options are merged.
 */
const CLIENT_DEFAULTS = { maxAttempts: 4, retryMode: "standard" } as const;
// Without `throwOnRequestTimeout` the SDK only logs a warning when `requestTimeout` passes.
const HANDLER_DEFAULTS = { connectionTimeout: 5_000, requestTimeout: 20_000, throwOnRequestTimeout: true };

const clientConfigWithDefaults = (config: S3ClientConfig): S3ClientConfig => {
  const handler = config.requestHandler;
  const isOptions = handler === undefined || (typeof handler === "object" && !("handle" in handler));
  return {
    ...CLIENT_DEFAULTS,
    ...config,
    ...(isOptions ? { requestHandler: { ...HANDLER_DEFAULTS, ...(handler as object | undefined) } } : {}),
  };
};

type Probe = { kind: "file"; size: number } | { kind: "directory" } | null;

/** A name with an extension: a dot after its first character, followed by something. */
const looksLikeFileName = (name: string): boolean => {
  const dot = name.lastIndexOf(".");
  return dot > 0 && dot < name.length - 1;
};

/**
 * A {@link MemoryStore} over S3 or an S3-compatible service. `/memories/a/b` is the object
 * `{prefix}a/b`; directories are implicit. Creates use `If-None-Match: *` and edits `If-Match: <etag>`,
 * so concurrent writers from any number of processes never lose an update.
 *
 * @example
 * ```ts
 * import { executeCommand } from "@mem/core";
 * import { S3Store } from "@mem/s3";
 * const store = new S3Store({ clientConfig: { region: "eu-west-1" }, bucket: "my-bucket", prefix: "agent-1/" });
 * await executeCommand(store, { command: "create", path: "/memories/notes.md", file_text: "# Notes\n" });
 * await store.close();
 * ```
 */
/** The prefix of a tenant's scope: `….mem-s3-tenants/{id}/`. */
const SCOPE_PREFIX = new RegExp(`(^|/)${TENANTS_NAME.replaceAll(".", "\\.")}/[^/]+/$`);

export class S3Store implements MemoryStore {
  readonly backend = "s3";
  readonly capabilities: StoreCapabilities;

  readonly #client: S3Client;
  readonly #ownsClient: boolean;
  readonly #bucket: Bucket;
  readonly #keys: KeySpace;
  readonly #journal: RenameJournal;
  readonly #copyConcurrency: number;
  readonly #options: S3StoreOptions;
  readonly #index: AccessIndex | null;
  readonly #singleWriter: boolean;

  constructor(options: S3StoreOptions) {
    const o = checkOptions("S3Store", options);
    o.string("bucket", { nonEmpty: true });
    o.string("prefix", { optional: true, pattern: /(^|\/)$/, allowed: 'empty or ending with "/"' });
    o.exactlyOne("client", "clientConfig");
    o.object("client", { optional: true });
    o.object("clientConfig", { optional: true });
    o.integer("copyConcurrency", { optional: true, min: 1 });
    if (options.singleWriter !== undefined && typeof options.singleWriter !== "boolean") {
      throw new TypeError("S3Store: `singleWriter` must be true or false");
    }
    this.#singleWriter = options.singleWriter === true;
    this.capabilities = { crossProcessSafe: !this.#singleWriter, atomicDirectoryRename: false };
    this.#keys = new KeySpace(options.prefix ?? "");
    if (options.client) {
      this.#client = options.client;
      this.#ownsClient = false;
    } else {
      this.#client = new S3Client(clientConfigWithDefaults(options.clientConfig));
      this.#ownsClient = true;
    }
    this.#bucket = new Bucket(this.#client, options.bucket);
    this.#journal = new RenameJournal(this.#bucket, this.#keys);
    this.#copyConcurrency = Math.max(1, options.copyConcurrency ?? 8);
    const expiry = expiryOf(options);
    const resolution = options.accessResolutionSeconds ?? 60;
    if (typeof resolution !== "number" || !Number.isFinite(resolution) || resolution < 0) {
      throw new TypeError("S3Store: `accessResolutionSeconds` must be a number of seconds, 0 or more");
    }
    this.#index = expiry && new AccessIndex(this.#bucket, this.#keys.accessKey, expiry, resolution * 1000);
    this.#options = { ...options };
  }

  /**
   * The store of `tenant`: the prefix `{prefix}.mem-s3-tenants/{tenant}/` on the same client and bucket
   * (no new connection), with the same options. Throws `TypeError` for an invalid tenant id.
   */
  scope(tenant: string): S3Store {
    checkTenant(tenant);
    const { clientConfig: _config, ...rest } = this.#options;
    return new S3Store({ ...rest, client: this.#client, prefix: this.#keys.tenantPrefix(tenant) });
  }

  /**
   * The tenants of this store, one `ListObjectsV2` (with a delimiter) per page. Ids only: files, bytes
   * and access times would cost a listing of each tenant. Pages follow the bucket's key order (see
   * tenants.ts).
   */
  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    const { after, limit } = tenantPageOptions(options);
    return listTenants(this.#client, this.#bucket.name, `${this.#keys.prefix}${TENANTS_NAME}/`, after, limit);
  }

  /**
   * On a scope only (a `TypeError` otherwise): deletes every object under the scope's prefix, its files,
   * hidden files, rename journals, access index and nested tenants, until none is left.
   */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    const { dryRun } = purgeOptions(options);
    if (!SCOPE_PREFIX.test(this.#keys.prefix)) throw unscopedPurgeError();
    return purgePrefix(this.#bucket, this.#keys.prefix, dryRun);
  }

  /** Files and bytes from a listing (sizes only, no object is read): one request per 1,000 objects. */
  async usage(): Promise<Usage> {
    const [objects, times] = await Promise.all([
      this.#bucket.listAll(this.#keys.prefix),
      this.#index?.load(),
    ]);
    const usage: Usage = { files: 0, bytes: 0 };
    const now = this.#index?.expiry.now();
    for (const file of this.#filesOf(objects)) {
      if (times && this.#index?.isExpired(times, file.path, now)) continue;
      usage.files += 1;
      usage.bytes += file.size;
    }
    return usage;
  }

  /**
   * Deletes the expired files and reports them; files without a recorded access time get one now.
   * No files without `expireAfterSeconds`. Also deletes the server-probe objects an hour old (see `check`).
   */
  async sweep(): Promise<SweepResult> {
    await this.#removeStaleProbes();
    const index = this.#index;
    if (!index) return { paths: [], bytes: 0 };
    const [objects, times] = await Promise.all([this.#bucket.listAll(this.#keys.prefix), index.load()]);
    const now = index.expiry.now();
    const files = this.#filesOf(objects);
    const expired = files.filter((f) => index.isExpired(times, f.path, now));
    await this.#bucket.deleteMany(expired.map((f) => this.#keys.keyOf(f.path)));
    const gone = new Set(expired.map((f) => f.path));
    const unrecorded = files.filter((f) => !times.has(f.path)).map((f) => f.path);
    if (gone.size > 0 || unrecorded.length > 0) {
      await index.update((t) => {
        for (const path of gone) if (index.isExpired(t, path, now)) t.delete(path);
        for (const path of unrecorded) if (!t.has(path)) t.set(path, now);
      });
    }
    return { paths: expired.map((f) => f.path), bytes: expired.reduce((n, f) => n + f.size, 0) };
  }

  /**
   * Fails fast with `StoreFailureError` when the bucket is missing, the endpoint unreachable, or the
   * credentials refused (one listing request of at most one key under the prefix), then measures again
   * which conditional writes the server enforces (see "Servers" in the README) and fails with the reason
   * every write would meet when the store cannot write safely.
   */
  async check(): Promise<void> {
    await this.#bucket.listPage(this.#keys.prefix, 1);
    await this.#writable(true);
    // Housekeeping after the verdict: a start that cannot tidy up still starts.
    await this.#removeStaleProbes().catch(() => undefined);
  }

  /**
   * Deletes the scratch objects of server probes whose clean-up failed (a fault, a killed process) once
   * they are older than `STALE_PROBE_MS`, so a probe running elsewhere right now keeps its object.
   */
  async #removeStaleProbes(): Promise<void> {
    const objects = await this.#bucket.listAll(this.#keys.probePrefix);
    if (objects.length === 0) return;
    await this.#bucket.deleteMany(staleProbes(objects, (this.#options.clock ?? Date.now)()));
  }

  isReservedName(name: string): boolean {
    return RESERVED_NAMES.has(name);
  }

  async read(path: string): Promise<FileData | null> {
    if (path === ROOT) return null;
    const index = this.#index;
    if (!index) {
      const object = await this.#bucket.get(this.#keys.keyOf(path));
      return object && { data: object.data, version: object.etag };
    }
    const [object, times] = await Promise.all([this.#bucket.get(this.#keys.keyOf(path)), index.load()]);
    const now = index.expiry.now();
    if (!object || index.isExpired(times, path, now)) return null;
    if (index.shouldRecordRead(times, path, now)) await index.update((t) => t.set(path, now));
    return { data: object.data, version: object.etag };
  }

  async stat(path: string): Promise<Stat | null> {
    if (path === ROOT) return { kind: "directory" };
    const index = this.#index;
    if (!index) return this.#probe(path);
    const [found, times] = await Promise.all([this.#probe(path), index.load()]);
    if (found?.kind === "file") return index.isExpired(times, path) ? null : found;
    if (found?.kind === "directory") {
      const files = this.#filesOf(await this.#bucket.listAll(this.#keys.dirPrefixOf(path)));
      const now = index.expiry.now();
      return files.some((f) => !index.isExpired(times, f.path, now)) ? found : null;
    }
    return null;
  }

  /**
   * A view in one request where the name tells: a name with an extension (`notes.md`) is read first and
   * listed only when no object is there; any other name is listed first and read only when nothing is
   * beneath it. S3 cannot answer both in one request, and directory names rarely have extensions.
   */
  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    const asFile = async (): Promise<FileOrListing | null> => {
      const file = await this.read(path);
      return file && { kind: "file", file };
    };
    const asDirectory = async (): Promise<FileOrListing | null> => {
      const listing = await this.list(path, depth, options);
      return listing && { kind: "directory", listing };
    };
    if (path !== ROOT && looksLikeFileName(nameOf(path))) return (await asFile()) ?? asDirectory();
    return (await asDirectory()) ?? asFile();
  }

  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    const [objects, times] = await Promise.all([
      this.#bucket.listAll(this.#keys.dirPrefixOf(dir)),
      this.#index?.load(),
    ]);
    let files = this.#filesOf(objects);
    if (times && this.#index) {
      const index = this.#index;
      const now = index.expiry.now();
      files = files.filter((f) => !index.isExpired(times, f.path, now));
    }
    if (dir !== ROOT && files.length === 0) return null;
    return listingFromFiles(dir, files, depth, { countFiles: options?.countFiles === true });
  }

  async files(): Promise<StoredFile[]> {
    return this.#filesOf(await this.#bucket.listAll(this.#keys.prefix));
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    await this.#writable();
    const index = this.#index;
    if (!index) return this.#writeObject(path, data, condition);
    if ("ifVersion" in condition) {
      if (index.isExpired(await index.load(), path)) throw new ConflictError(path);
    } else {
      await this.#reap(path);
    }
    const written = await this.#writeObject(path, data, condition);
    const now = index.expiry.now();
    await index.update((t) => t.set(path, now));
    return written;
  }

  /**
   * Before a change with expiry on: deletes the expired files at `path`, beneath it or among its
   * ancestors, so that the change meets only live files.
   */
  async #reap(path: string): Promise<void> {
    const index = this.#index;
    if (!index) return;
    const now = index.expiry.now();
    const expired = index.expiredAround(await index.load(), path, now);
    if (expired.length === 0) return;
    await this.#bucket.deleteMany(expired.map((p) => this.#keys.keyOf(p)));
    await index.update((t) => {
      for (const p of expired) if (index.isExpired(t, p, now)) t.delete(p);
    });
  }

  async #writeObject(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
  ): Promise<{ version: Version }> {
    const key = this.#keys.keyOf(path);
    if ("ifVersion" in condition) {
      const out = await this.#bucket.put(key, data, { ifMatch: condition.ifVersion });
      if ("refused" in out) throw new ConflictError(path);
      return { version: out.etag };
    }
    const [fileAncestor, isDirectory] = await Promise.all([
      this.#fileAncestorOf(path),
      this.#hasKeysUnder(path),
    ]);
    if (fileAncestor) throw new NotADirectoryError(path, fileAncestor);
    if (isDirectory) throw new AlreadyExistsError(path);
    for (let attempt = 0; ; attempt++) {
      const out = await this.#bucket.put(key, data, { ifNoneMatch: "*" });
      if (!("refused" in out)) return { version: out.etag };
      if (out.refused === "precondition") throw new AlreadyExistsError(path);
      // 409: another conditional write to the key is in flight; its outcome decides ours.
      if (attempt >= 3) throw new ConflictError(path);
      await sleep(Math.random() * 25 * 2 ** attempt);
    }
  }

  async delete(path: string): Promise<boolean> {
    await this.#writable();
    const index = this.#index;
    if (!index) return this.#deleteObjects(path);
    await this.#reap(path);
    const deleted = await this.#deleteObjects(path);
    if (deleted) {
      await index.update((t) => {
        for (const p of [...t.keys()]) if (isSameOrInside(p, path)) t.delete(p);
      });
    }
    return deleted;
  }

  async #deleteObjects(path: string): Promise<boolean> {
    const found = path === ROOT ? ({ kind: "directory" } as const) : await this.#probe(path);
    if (!found) return false;
    if (found.kind === "file") {
      await this.#bucket.deleteOne(this.#keys.keyOf(path));
      return true;
    }
    const objects = await this.#bucket.listAll(this.#keys.dirPrefixOf(path));
    const keys = objects.map((o) => o.key).filter((key) => this.#keys.pathOfKey(key) !== null);
    if (keys.length === 0) return false;
    await this.#bucket.deleteMany(keys);
    return true;
  }

  async rename(from: string, to: string): Promise<void> {
    await this.#writable();
    const index = this.#index;
    if (!index) return this.#moveObjects(from, to);
    await this.#reap(from);
    await this.#reap(to);
    await this.#moveObjects(from, to);
    // A move is an access (SPEC §7) of everything it moves.
    const now = index.expiry.now();
    const moved = this.#filesOf(await this.#bucket.listAll(this.#keys.dirPrefixOf(to)));
    await index.update((t) => {
      for (const p of [...t.keys()]) if (isSameOrInside(p, from)) t.delete(p);
      if (moved.length === 0) t.set(to, now);
      for (const f of moved) t.set(f.path, now);
    });
  }

  async #moveObjects(from: string, to: string): Promise<void> {
    const [source, target, fileAncestor] = await Promise.all([
      this.#probe(from),
      this.#probe(to),
      this.#fileAncestorOf(to, from),
    ]);
    if (!source) throw new NotFoundError(from);
    if (source.kind === "file") {
      if (target) throw new AlreadyExistsError(to);
      if (fileAncestor) throw new NotADirectoryError(to, fileAncestor);
      const copied = await this.#bucket.copyIfAbsent(this.#keys.keyOf(from), this.#keys.keyOf(to));
      if (copied === "exists") throw new AlreadyExistsError(to);
      if (copied === "missing") throw new NotFoundError(from);
      try {
        await this.#bucket.deleteOne(this.#keys.keyOf(from));
      } catch (error) {
        // The copy is made, so the command is half applied: the file is at both paths until one is
        // deleted (running the rename again now answers that the destination exists).
        const reason = isStoreError(error, "STORE_FAILURE")
          ? (error as StoreFailureError).reason
          : "S3 DeleteObject request failed";
        throw new StoreFailureError(reason, { mayBeApplied: true });
      }
      return;
    }
    if (target) {
      // Only the unfinished rename from → to may continue into an existing destination.
      if (!(await this.#journal.isFor(from, to))) throw new AlreadyExistsError(to);
    } else {
      if (fileAncestor) throw new NotADirectoryError(to, fileAncestor);
      const opened = await this.#journal.open(from, to, (p) => this.#probe(p));
      if (!opened) throw new AlreadyExistsError(to);
    }
    await this.#moveDirectory(from, to, target !== null);
  }

  /**
   * Completes every directory rename an earlier process began and could not finish (crash, lost
   * connection). Returns how many it completed. Call it at start-up after an unclean shutdown; a rename
   * that failed in this process also completes when the same rename is run again.
   */
  async completePendingRenames(): Promise<number> {
    await this.#writable();
    let completed = 0;
    for (const entry of await this.#journal.all()) {
      if ((await this.#probe(entry.from))?.kind === "directory") {
        await this.#moveDirectory(entry.from, entry.to, true);
        completed++;
      } else {
        await this.#journal.close(entry.to);
      }
    }
    return completed;
  }

  async close(): Promise<void> {
    if (this.#ownsClient) this.#client.destroy();
  }

  /**
   * Resolves once the server's conditional writes are known (measured once per client and bucket, or
   * again when `fresh`), and throws the reason to refuse writes when they are unsafe on it.
   */
  async #writable(fresh = false): Promise<void> {
    const conditions = await conditionsOf(
      this.#client,
      this.#bucket.name,
      () => this.#keys.scratchKey(),
      fresh,
    );
    const missing = missingConditions(conditions);
    if (missing.length > 0 && !this.#singleWriter) throw unsafeServerFailure(missing);
    this.#bucket.conditions = conditions;
  }

  /**
   * Copies every object of `from` into `to` (never overwriting), then deletes the originals, then the
   * journal. Each step can be repeated, so an interrupted move is completed by running it again. When
   * `resume`, the destination may already hold some copies: it is listed first, and only names it lacks
   * are copied (a copy onto an existing name would be refused anyway), so each run makes progress.
   */
  async #moveDirectory(from: string, to: string, resume: boolean): Promise<void> {
    const fromPrefix = this.#keys.dirPrefixOf(from);
    const toPrefix = this.#keys.dirPrefixOf(to);
    const [sourceObjects, existing] = await Promise.all([
      this.#bucket.listAll(fromPrefix),
      resume ? this.#bucket.listAll(toPrefix) : Promise.resolve([]),
    ]);
    const sources = sourceObjects.map((o) => o.key);
    const present = new Set(existing.map((o) => o.key));
    const missing = sources.filter((key) => !present.has(toPrefix + key.slice(fromPrefix.length)));
    await forEachLimited(missing, this.#copyConcurrency, async (key) => {
      await this.#bucket.copyIfAbsent(key, toPrefix + key.slice(fromPrefix.length), false);
    });
    await this.#bucket.deleteMany(sources);
    await this.#journal.close(to);
  }

  /**
   * What is at `path`, usually in one ListObjectsV2 call: the smallest key starting with `{key}` is
   * `{key}` itself when a file is there, or a key under `{key}/` for a directory — unless a sibling such
   * as `{key}.md` sorts in between, in which case a HEAD and a narrower listing decide.
   */
  async #probe(path: string): Promise<Probe> {
    if (path === ROOT) return { kind: "directory" };
    const key = this.#keys.keyOf(path);
    const first = (await this.#bucket.listPage(key, 1)).objects[0];
    if (!first) return null;
    if (first.key === key) return { kind: "file", size: first.size };
    if (first.key.startsWith(`${key}/`)) return { kind: "directory" };
    const [file, isDirectory] = await Promise.all([this.#bucket.head(key), this.#hasKeysUnder(path)]);
    if (file) return { kind: "file", size: file.size };
    return isDirectory ? { kind: "directory" } : null;
  }

  async #hasKeysUnder(path: string): Promise<boolean> {
    return (await this.#bucket.listPage(this.#keys.dirPrefixOf(path), 1)).objects.length > 0;
  }

  /**
   * The outermost proper ancestor of `path` that is a file, checked with parallel HEADs. Ancestors that
   * contain `knownPath` (an existing file or directory) are directories and need no request.
   */
  async #fileAncestorOf(path: string, knownPath?: string): Promise<string | undefined> {
    const candidates = ancestorsOf(path)
      .filter(
        (a) => a !== ROOT && !(knownPath !== undefined && isSameOrInside(knownPath, a) && knownPath !== a),
      )
      .reverse();
    const found = await Promise.all(candidates.map((a) => this.#bucket.head(this.#keys.keyOf(a))));
    return candidates.find((_, i) => found[i] !== null);
  }

  #filesOf(objects: readonly ObjectSummary[]): { path: string; size: number }[] {
    return objects.flatMap((o) => {
      const path = this.#keys.pathOfKey(o.key);
      return path === null ? [] : [{ path, size: o.size }];
    });
  }
}

/** Runs `task` over `items` with at most `limit` at once; the first failure is thrown after all settle. */
async function forEachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const item = items[next++]!;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}
