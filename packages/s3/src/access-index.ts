/**
 * Access times for expiry (SPEC §7) on S3, where recording every read in the object itself would cost a
 * copy per view: one JSON object per store (or scope), `{prefix}.mem-s3-access.json`, mapping each
 * file's path to its last recorded access in milliseconds. Writes and renames record their access;
 * a view records one only when the recorded time is at least `resolutionMs` old, so a file read often
 * costs one index update per resolution, not one per read. A file is gone once `limit + resolution`
 * passed since its recorded access: never early, at most `resolution` late. Updates are conditional
 * writes (`If-Match`), retried, so concurrent processes never lose each other's times. A file with no
 * recorded time (written without expiry) counts as accessed when a sweep first meets it.
 */
import {
  AlreadyExistsError,
  ConflictError,
  type Expiry,
  isSameOrInside,
  StoreFailureError,
  TooManyConflictsError,
  type UpdatableStore,
  updateWithRetry,
} from "@mem/core";
import type { Bucket, PutCondition } from "./bucket.js";

type Times = Map<string, number>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const parse = (data: Uint8Array): Times => {
  try {
    const parsed = JSON.parse(decoder.decode(data)) as { times?: Record<string, unknown> };
    const times: Times = new Map();
    for (const [path, value] of Object.entries(parsed.times ?? {})) {
      if (typeof value === "number" && Number.isFinite(value)) times.set(path, value);
    }
    return times;
  } catch {
    throw new StoreFailureError("the access-time index of the store is damaged");
  }
};

const serialize = (times: Times): Uint8Array =>
  encoder.encode(JSON.stringify({ version: 1, times: Object.fromEntries(times) }));

export class AccessIndex {
  readonly #bucket: Bucket;
  readonly #key: string;
  readonly expiry: Expiry;
  readonly #resolutionMs: number;

  constructor(bucket: Bucket, key: string, expiry: Expiry, resolutionMs: number) {
    this.#bucket = bucket;
    this.#key = key;
    this.expiry = expiry;
    this.#resolutionMs = resolutionMs;
  }

  /** The recorded times (one GET). */
  async load(): Promise<Times> {
    const object = await this.#bucket.get(this.#key);
    return object ? parse(object.data) : new Map();
  }

  /** Whether the file at `path` is gone at `now`, given `times` from `load`. */
  isExpired(times: Times, path: string, now = this.expiry.now()): boolean {
    const at = times.get(path);
    return at !== undefined && now - at > this.expiry.limitMs + this.#resolutionMs;
  }

  /** Whether a view at `now` should record its access. */
  shouldRecordRead(times: Times, path: string, now: number): boolean {
    const at = times.get(path);
    return at === undefined || now - at >= this.#resolutionMs;
  }

  /** The expired paths among `times` that are `path`, beneath it, or an ancestor of it. */
  expiredAround(times: Times, path: string, now = this.expiry.now()): string[] {
    return [...times.keys()].filter(
      (p) => (isSameOrInside(p, path) || isSameOrInside(path, p)) && this.isExpired(times, p, now),
    );
  }

  /** Applies `change` to the recorded times with a conditional write, retried when another process won. */
  async update(change: (times: Times) => void): Promise<void> {
    try {
      await updateWithRetry(
        this.#versioned,
        this.#key,
        (object) => {
          const times = object ? parse(object.data) : new Map<string, number>();
          change(times);
          return serialize(times);
        },
        // S3 round trips are slow: fewer, longer-spaced attempts than core's default.
        { attempts: 20, backoff: { baseMs: 10, capMs: 320 } },
      );
    } catch (error) {
      // `instanceof`: the loop's own error, from this copy of core; the key stays out of the reason.
      if (error instanceof TooManyConflictsError) {
        throw new StoreFailureError("the access-time index kept changing under concurrent updates");
      }
      throw error;
    }
  }

  /** The index object as a versioned file (its ETag the version), refusals as lost races. */
  get #versioned(): UpdatableStore {
    const bucket = this.#bucket;
    return {
      read: async (key) => {
        const object = await bucket.get(key);
        return object ? { data: object.data, version: object.etag } : null;
      },
      write: async (key, data, condition) => {
        const precondition: PutCondition =
          "ifVersion" in condition ? { ifMatch: condition.ifVersion } : { ifNoneMatch: "*" };
        const out = await bucket.put(key, data, precondition, { contentType: "application/json" });
        if ("refused" in out)
          throw "ifVersion" in condition ? new ConflictError(key) : new AlreadyExistsError(key);
        return { version: out.etag };
      },
    };
  }
}
