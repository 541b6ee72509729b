/** The few S3 calls the store makes, each mapped to typed results and safe failures. */
import { randomUUID } from "node:crypto";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { StoreFailureError } from "@mem/core";
import { type AttemptLog, trackAttempts } from "./attempts.js";
import { ifMatchValue, S3_CONDITIONS, type ServerConditions } from "./conditions.js";
import { statusOf, toStoreFailure } from "./failure.js";
import { copySourceOf } from "./keys.js";

/** One object of a listing. */
export interface ObjectSummary {
  key: string;
  size: number;
  /** When the object was last written, in milliseconds since the epoch (server time), when listed with it. */
  modified?: number;
}

/** The most keys one ListObjectsV2 page or one DeleteObjects request carries. */
export const BATCH = 1000;
/** Characters valid in a key but not in an XML 1.0 document. */
const NOT_XML = /[\uFFFE\uFFFF]/;

/**
 * S3 keys are at most 1,024 bytes of UTF-8, so a longer key names no object: reads and listings of one
 * answer "nothing there" without asking (Ceph RGW would answer 400 `InvalidObjectName`), and writes of
 * one fail without asking, the same way on every server (s3rver has no limit).
 */
const MAX_KEY_BYTES = 1024;
const tooLong = (key: string): boolean => Buffer.byteLength(key) > MAX_KEY_BYTES;
const refuseTooLong = (key: string): void => {
  if (tooLong(key)) {
    throw new StoreFailureError(
      `the S3 key would be ${Buffer.byteLength(key)} bytes, prefix included; S3 allows at most ${MAX_KEY_BYTES}`,
    );
  }
};

/** The outcome of a conditional write that did not hold. */
export type Refusal = "precondition" | "conflict" | "missing";

/**
 * User metadata (`x-amz-meta-mem-write-id`) holding a random id per write: when the SDK retries a write
 * whose answer was lost, the object shows whether the earlier attempt was applied.
 */
export const WRITE_ID = "mem-write-id";

/** The condition of a PutObject. */
export type PutCondition = { ifNoneMatch: "*" } | { ifMatch: string };

export class Bucket {
  /** What the server enforces; the store sets what its probe measured before its first write. */
  conditions: ServerConditions = S3_CONDITIONS;
  readonly #keyLocks = new KeyLocks();

  readonly #client: S3Client;

  constructor(
    client: S3Client,
    readonly name: string,
  ) {
    this.#client = client;
  }

  /** The object's bytes and ETag, or `null` when there is no such key. */
  async get(key: string): Promise<{ data: Uint8Array; etag: string } | null> {
    if (tooLong(key)) return null;
    try {
      const out = await this.#client.send(new GetObjectCommand({ Bucket: this.name, Key: key }));
      const data = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      return { data, etag: out.ETag ?? "" };
    } catch (error) {
      if (statusOf(error) === 404 && nameOf(error) !== "NoSuchBucket") return null;
      throw toStoreFailure("GetObject", error);
    }
  }

  /** The object's size, ETag and write id, or `null` when there is no such key. */
  async head(key: string): Promise<{ size: number; etag: string; writeId: string | undefined } | null> {
    if (tooLong(key)) return null;
    try {
      const out = await this.#client.send(new HeadObjectCommand({ Bucket: this.name, Key: key }));
      return { size: out.ContentLength ?? 0, etag: out.ETag ?? "", writeId: out.Metadata?.[WRITE_ID] };
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw toStoreFailure("HeadObject", error);
    }
  }

  /**
   * Writes an object under a condition: `ifNoneMatch: "*"` (only if absent) or `ifMatch: etag`.
   * Returns the new ETag, or why the condition did not hold. When an attempt may have been applied
   * without its answer coming back (the SDK then retries, and the retry meets the earlier write), the
   * object's write id tells: this write's own object is a success, anything else an outcome that cannot
   * be known, thrown as a `StoreFailureError` with `mayBeApplied`. Without `exact`, a refusal after a lost
   * answer is returned as it is. Where the server does not enforce the condition (only with
   * `singleWriter`), the condition is checked with a HeadObject, with no other write or delete of the key
   * through this `Bucket` in between.
   */
  async put(
    key: string,
    data: Uint8Array,
    condition: PutCondition,
    options: { contentType?: string; exact?: boolean } = {},
  ): Promise<{ etag: string } | { refused: Refusal }> {
    refuseTooLong(key);
    const enforced = "ifMatch" in condition ? this.conditions.ifMatch !== null : this.conditions.ifNoneMatch;
    if (enforced) return this.#send(key, data, condition, options);
    return this.#keyLocks.run(key, async () => {
      const current = await this.head(key);
      if ("ifMatch" in condition) {
        if (!current) return { refused: "missing" };
        if (ifMatchValue(current.etag, "bare") !== ifMatchValue(condition.ifMatch, "bare"))
          return { refused: "precondition" };
      } else if (current) return { refused: "precondition" };
      return this.#send(key, data, null, options);
    });
  }

  async #send(
    key: string,
    data: Uint8Array,
    condition: PutCondition | null,
    { contentType = "application/octet-stream", exact = true }: { contentType?: string; exact?: boolean },
  ): Promise<{ etag: string } | { refused: Refusal }> {
    const writeId = randomUUID();
    const form = this.conditions.ifMatch ?? "quoted";
    const command = new PutObjectCommand({
      Bucket: this.name,
      Key: key,
      Body: data,
      ContentLength: data.byteLength,
      ContentType: contentType,
      Metadata: { [WRITE_ID]: writeId },
      ...(condition === null
        ? {}
        : "ifMatch" in condition
          ? { IfMatch: ifMatchValue(condition.ifMatch, form) }
          : { IfNoneMatch: "*" }),
    });
    const attempts = trackAttempts(command);
    try {
      const out = await this.#client.send(command);
      return { etag: out.ETag ?? "" };
    } catch (error) {
      const status = statusOf(error);
      const refusal: Refusal | undefined =
        status === 412
          ? "precondition"
          : status === 409
            ? "conflict"
            : status === 404 &&
                condition !== null &&
                "ifMatch" in condition &&
                nameOf(error) !== "NoSuchBucket"
              ? "missing"
              : undefined;
      if (attempts.lost !== undefined && (exact || refusal === undefined)) {
        return { etag: await this.#ownVersion("PutObject", key, writeId, attempts) };
      }
      if (attempts.internalError && condition !== null) {
        // A 500 to a conditional write (Ceph RGW's answer to the losers of a race) decides nothing by
        // itself: the object's write id tells whether an attempt was applied.
        const current = await this.head(key).catch(() => {
          throw toStoreFailure("PutObject", error, { mayBeApplied: true });
        });
        if (current?.writeId === writeId) return { etag: current.etag };
        if (refusal !== undefined) return { refused: refusal };
        if (status === 500)
          return { refused: "ifNoneMatch" in condition && current ? "precondition" : "conflict" };
      }
      if (refusal !== undefined) return { refused: refusal };
      throw toStoreFailure("PutObject", error);
    }
  }

  /**
   * Copies `from` to `to` unless `to` exists: `"copied"`, `"exists"` when `to` was already there, or
   * `"missing"` when `from` is gone. The copy gets a write id of its own, so that after a lost answer
   * `exact` (the default) can tell this copy from someone else's object, as `put` does. Without `exact`,
   * a refusal after a lost answer is returned as it is: fine where "the destination is taken" is all
   * that matters. On a server whose CopyObject ignores `If-None-Match` (Ceph RGW), the copy is a
   * GetObject and a PutObject with `If-None-Match: *` instead.
   */
  async copyIfAbsent(from: string, to: string, exact = true): Promise<"copied" | "exists" | "missing"> {
    refuseTooLong(to);
    if (!this.conditions.copyIfNoneMatch) {
      const source = await this.get(from);
      if (!source) return "missing";
      const out = await this.put(to, source.data, { ifNoneMatch: "*" }, { exact });
      return "refused" in out ? "exists" : "copied";
    }
    const writeId = randomUUID();
    const command = new CopyObjectCommand({
      Bucket: this.name,
      Key: to,
      CopySource: copySourceOf(this.name, from),
      IfNoneMatch: "*",
      MetadataDirective: "REPLACE",
      ContentType: "application/octet-stream",
      Metadata: { [WRITE_ID]: writeId },
    });
    const attempts = trackAttempts(command);
    try {
      await this.#client.send(command);
      return "copied";
    } catch (error) {
      const refusal =
        statusOf(error) === 412 ? "exists" : nameOf(error) === "NoSuchKey" ? "missing" : undefined;
      if (attempts.lost !== undefined && (exact || refusal === undefined)) {
        await this.#ownVersion("CopyObject", to, writeId, attempts);
        return "copied";
      }
      if (refusal !== undefined) return refusal;
      throw toStoreFailure("CopyObject", error);
    }
  }

  /** Deletes a key; deleting a missing key succeeds. */
  async deleteOne(key: string): Promise<void> {
    // Where the store checks conditions itself, a delete must not fall between a check and its write.
    if (!this.conditions.ifNoneMatch || this.conditions.ifMatch === null) {
      return this.#keyLocks.run(key, () => this.#sendDelete(key));
    }
    return this.#sendDelete(key);
  }

  async #sendDelete(key: string): Promise<void> {
    const command = new DeleteObjectCommand({ Bucket: this.name, Key: key });
    const attempts = trackAttempts(command);
    try {
      await this.#client.send(command);
    } catch (error) {
      throw toStoreFailure("DeleteObject", error, { mayBeApplied: attempts.lost !== undefined });
    }
  }

  /**
   * The ETag of `key` when it holds the write `writeId`, after an attempt of that write may have been
   * applied unanswered; otherwise the write's outcome is unknown, and a `mayBeApplied` failure is thrown.
   */
  async #ownVersion(operation: string, key: string, writeId: string, attempts: AttemptLog): Promise<string> {
    const unknown = () => toStoreFailure(operation, attempts.lost, { mayBeApplied: true });
    const current = await this.head(key).catch(() => {
      throw unknown();
    });
    if (current?.writeId !== writeId) throw unknown();
    return current.etag;
  }

  /**
   * Deletes keys in batches of 1,000; a key that is already gone counts as deleted. A key XML 1.0 cannot
   * carry (U+FFFE, U+FFFF) cannot go in DeleteObjects' XML body: it is deleted on its own.
   */
  async deleteMany(all: readonly string[]): Promise<void> {
    const keys = all.filter((key) => !NOT_XML.test(key));
    for (const key of all) if (NOT_XML.test(key)) await this.deleteOne(key);
    for (let i = 0; i < keys.length; i += BATCH) {
      const batch = keys.slice(i, i + BATCH);
      if (batch.length === 1) {
        await this.deleteOne(batch[0]!);
        continue;
      }
      let errors: unknown[] | undefined;
      const command = new DeleteObjectsCommand({
        Bucket: this.name,
        Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
      });
      const attempts = trackAttempts(command);
      try {
        errors = (await this.#client.send(command)).Errors;
      } catch (error) {
        throw toStoreFailure("DeleteObjects", error, { mayBeApplied: attempts.lost !== undefined });
      }
      if (errors && errors.length > 0) {
        const first = (errors[0] as { Code?: unknown }).Code;
        const code = typeof first === "string" && /^[A-Za-z]{1,64}$/.test(first) ? ` (${first})` : "";
        throw new StoreFailureError(
          `S3 DeleteObjects could not delete ${errors.length} of ${batch.length} keys${code}`,
        );
      }
    }
  }

  /** One page of keys under `prefix`, from `token` on. */
  async listPage(
    prefix: string,
    maxKeys: number,
    token?: string,
  ): Promise<{ objects: ObjectSummary[]; next: string | undefined }> {
    if (tooLong(prefix)) return { objects: [], next: undefined };
    try {
      const out = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.name,
          Prefix: prefix,
          MaxKeys: maxKeys,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      const objects = (out.Contents ?? []).flatMap((o) =>
        o.Key === undefined
          ? []
          : [
              {
                key: o.Key,
                size: o.Size ?? 0,
                ...(o.LastModified === undefined ? {} : { modified: o.LastModified.getTime() }),
              },
            ],
      );
      return { objects, next: out.IsTruncated ? out.NextContinuationToken : undefined };
    } catch (error) {
      throw toStoreFailure("ListObjectsV2", error);
    }
  }

  /** Every key under `prefix`, following pagination. */
  async listAll(prefix: string): Promise<ObjectSummary[]> {
    const all: ObjectSummary[] = [];
    let token: string | undefined;
    do {
      const page = await this.listPage(prefix, BATCH, token);
      all.push(...page.objects);
      token = page.next;
    } while (token !== undefined);
    return all;
  }
}

const nameOf = (error: unknown): unknown => (error as { name?: unknown } | null)?.name;

/** Runs tasks on the same key one after another, tasks on different keys at once. */
class KeyLocks {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
