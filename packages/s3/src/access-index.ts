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
import { type Expiry, isSameOrInside, StoreFailureError } from "@mem/core";
import type { Bucket } from "./bucket.js";

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
  constructor(
    private readonly bucket: Bucket,
    private readonly key: string,
    readonly expiry: Expiry,
    private readonly resolutionMs: number,
  ) {}

  /** The recorded times (one GET). */
  async load(): Promise<Times> {
    const object = await this.bucket.get(this.key);
    return object ? parse(object.data) : new Map();
  }

  /** Whether the file at `path` is gone at `now`, given `times` from `load`. */
  isExpired(times: Times, path: string, now = this.expiry.now()): boolean {
    const at = times.get(path);
    return at !== undefined && now - at > this.expiry.limitMs + this.resolutionMs;
  }

  /** Whether a view at `now` should record its access. */
  shouldRecordRead(times: Times, path: string, now: number): boolean {
    const at = times.get(path);
    return at === undefined || now - at >= this.resolutionMs;
  }

  /** The expired paths among `times` that are `path`, beneath it, or an ancestor of it. */
  expiredAround(times: Times, path: string, now = this.expiry.now()): string[] {
    return [...times.keys()].filter(
      (p) => (isSameOrInside(p, path) || isSameOrInside(path, p)) && this.isExpired(times, p, now),
    );
  }

  /** Applies `change` to the recorded times with a conditional write, retried when another process won. */
  async update(change: (times: Times) => void): Promise<void> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const object = await this.bucket.get(this.key);
      const times = object ? parse(object.data) : new Map<string, number>();
      change(times);
      const out = await this.bucket.put(
        this.key,
        serialize(times),
        object ? { ifMatch: object.etag } : { ifNoneMatch: "*" },
        { contentType: "application/json" },
      );
      if (!("refused" in out)) return;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** Math.min(attempt, 5)));
    }
    throw new StoreFailureError("the access-time index kept changing under concurrent updates");
  }
}
