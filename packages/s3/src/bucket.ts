/** The few S3 calls the store makes, each mapped to typed results and safe failures. */
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
import { statusOf, storeFailure } from "./failure.js";
import { copySourceOf } from "./keys.js";

/** One object of a listing. */
export interface ObjectSummary {
  key: string;
  size: number;
}

/** The most keys one ListObjectsV2 page or one DeleteObjects request carries. */
export const BATCH = 1000;

/** The outcome of a conditional write that did not hold. */
export type Refusal = "precondition" | "conflict" | "missing";

export class Bucket {
  constructor(
    private readonly client: S3Client,
    readonly name: string,
  ) {}

  /** The object's bytes and ETag, or `null` when there is no such key. */
  async get(key: string): Promise<{ data: Uint8Array; etag: string } | null> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.name, Key: key }));
      const data = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      return { data, etag: out.ETag ?? "" };
    } catch (error) {
      if (statusOf(error) === 404 && nameOf(error) !== "NoSuchBucket") return null;
      throw storeFailure("GetObject", error);
    }
  }

  /** The object's size, or `null` when there is no such key. */
  async head(key: string): Promise<{ size: number } | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.name, Key: key }));
      return { size: out.ContentLength ?? 0 };
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw storeFailure("HeadObject", error);
    }
  }

  /**
   * Writes an object under a condition: `ifNoneMatch: "*"` (only if absent) or `ifMatch: etag`.
   * Returns the new ETag, or why the condition did not hold.
   */
  async put(
    key: string,
    data: Uint8Array,
    condition: { ifNoneMatch: "*" } | { ifMatch: string },
    contentType = "application/octet-stream",
  ): Promise<{ etag: string } | { refused: Refusal }> {
    try {
      const out = await this.client.send(
        new PutObjectCommand({
          Bucket: this.name,
          Key: key,
          Body: data,
          ContentLength: data.byteLength,
          ContentType: contentType,
          ...("ifMatch" in condition ? { IfMatch: condition.ifMatch } : { IfNoneMatch: "*" }),
        }),
      );
      return { etag: out.ETag ?? "" };
    } catch (error) {
      const status = statusOf(error);
      if (status === 412) return { refused: "precondition" };
      if (status === 409) return { refused: "conflict" };
      if (status === 404 && "ifMatch" in condition && nameOf(error) !== "NoSuchBucket")
        return { refused: "missing" };
      throw storeFailure("PutObject", error);
    }
  }

  /**
   * Copies `from` to `to` unless `to` exists: `"copied"`, `"exists"` when `to` was already there, or
   * `"missing"` when `from` is gone.
   */
  async copyIfAbsent(from: string, to: string): Promise<"copied" | "exists" | "missing"> {
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.name,
          Key: to,
          CopySource: copySourceOf(this.name, from),
          IfNoneMatch: "*",
        }),
      );
      return "copied";
    } catch (error) {
      if (statusOf(error) === 412) return "exists";
      if (nameOf(error) === "NoSuchKey") return "missing";
      throw storeFailure("CopyObject", error);
    }
  }

  async deleteOne(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.name, Key: key }));
    } catch (error) {
      throw storeFailure("DeleteObject", error);
    }
  }

  /** Deletes keys in batches of 1,000; a key that is already gone counts as deleted. */
  async deleteMany(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += BATCH) {
      const batch = keys.slice(i, i + BATCH);
      if (batch.length === 1) {
        await this.deleteOne(batch[0]!);
        continue;
      }
      let errors: unknown[] | undefined;
      try {
        const out = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.name,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        );
        errors = out.Errors;
      } catch (error) {
        throw storeFailure("DeleteObjects", error);
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
    try {
      const out = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.name,
          Prefix: prefix,
          MaxKeys: maxKeys,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      const objects = (out.Contents ?? []).flatMap((o) =>
        o.Key === undefined ? [] : [{ key: o.Key, size: o.Size ?? 0 }],
      );
      return { objects, next: out.IsTruncated ? out.NextContinuationToken : undefined };
    } catch (error) {
      throw storeFailure("ListObjectsV2", error);
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
