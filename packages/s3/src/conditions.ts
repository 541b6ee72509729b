/**
 * Which conditional writes the server behind a bucket really enforces. S3-compatible servers differ:
 * Ceph RGW 16.2 refuses `If-Match` with the quoted ETag the SDK returns and ignores `If-None-Match` on
 * CopyObject; s3rver ignores every condition. A server that ignores a condition turns "no lost update"
 * into "last writer wins" without any error, so the store measures it before its first write.
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  type PutObjectCommandInput,
  type S3Client,
} from "@aws-sdk/client-s3";
import { StoreFailureError } from "@mem/core";
import type { ObjectSummary } from "./bucket.js";
import { statusOf, toStoreFailure } from "./failure.js";
import { copySourceOf } from "./keys.js";

/** What a server enforces, as measured by {@link probeConditions}. */
export interface ServerConditions {
  /** PutObject with `If-None-Match: *` is refused when the key exists. */
  readonly ifNoneMatch: boolean;
  /**
   * The form of `If-Match` on PutObject the server enforces: the ETag as S3 returns it (`"…"`, RFC 7232),
   * the ETag without its quotes (Ceph RGW), or `null` when neither is enforced.
   */
  readonly ifMatch: "quoted" | "bare" | null;
  /** CopyObject with `If-None-Match: *` is refused when the destination exists. */
  readonly copyIfNoneMatch: boolean;
}

/** What S3 documents; used until a probe has measured the server. */
export const S3_CONDITIONS: ServerConditions = {
  ifNoneMatch: true,
  ifMatch: "quoted",
  copyIfNoneMatch: true,
};

/** The conditions without which concurrent writers could overwrite each other, named for error reasons. */
export const missingConditions = (conditions: ServerConditions): string[] => [
  ...(conditions.ifNoneMatch ? [] : ["If-None-Match: *"]),
  ...(conditions.ifMatch === null ? ["If-Match"] : []),
];

/** The failure every write of a store meets when the server lacks `missing` and no `singleWriter` was declared. */
export const unsafeServerFailure = (missing: readonly string[]): StoreFailureError =>
  new StoreFailureError(
    `the S3 server does not enforce ${missing.join(" or ")} on PutObject, so concurrent writes could ` +
      "overwrite each other; writes are refused unless the store is configured with singleWriter",
  );

/** An ETag in the form `form` of `If-Match`. */
export const ifMatchValue = (etag: string, form: "quoted" | "bare"): string => {
  const bare = etag.replace(/^"|"$/g, "");
  return form === "bare" ? bare : `"${bare}"`;
};

/**
 * Measures, on the scratch key `key` (which must not exist) and on `{key}.absent` (which must never exist),
 * which conditions the server enforces: 7 requests (5 PutObject, 1 CopyObject, 1 DeleteObject), one more
 * PutObject when `If-Match` only works unquoted, and one more DeleteObject when `If-Match` on a missing key
 * creates it. A failure of a request the measurement needs is thrown as a `StoreFailureError`. The
 * deletes only clean up after a verdict already known, so their failures are ignored: what they leave
 * under the probe name is removed later by `removeStaleProbes`.
 */
export async function probeConditions(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<ServerConditions> {
  const absent = `${key}.absent`;
  const put = async (
    body: string,
    condition: Pick<PutObjectCommandInput, "IfMatch" | "IfNoneMatch">,
    target = key,
  ) => {
    try {
      const out = await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: target,
          Body: body,
          ContentType: "text/plain",
          ...condition,
        }),
      );
      return { status: 200, etag: out.ETag ?? "" };
    } catch (error) {
      const status = statusOf(error);
      const noBucket = (error as { name?: unknown }).name === "NoSuchBucket";
      // 400 and 501: a server that rejects the condition header, which is as good as not enforcing it.
      const refused = status === 412 || status === 400 || status === 501 || (status === 404 && !noBucket);
      const conditional = condition.IfMatch !== undefined || condition.IfNoneMatch !== undefined;
      if (refused && conditional) return { status, etag: "" };
      throw toStoreFailure("PutObject", error);
    }
  };
  const remove = async (target: string) => {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: target }));
    } catch {
      // The verdict does not depend on it; a later start or sweep() removes what stays.
    }
  };

  const first = await put("a", { IfNoneMatch: "*" });
  // Refused on a fresh key: the condition is unusable, and the key is made without it for the next steps.
  const created = first.status === 200 ? first : await put("a", {});
  // The same body again: if the server ignores the condition, the object and its ETag stay the same.
  const ifNoneMatch = first.status === 200 && (await put("a", { IfNoneMatch: "*" })).status === 412;
  let ifMatch: ServerConditions["ifMatch"] = null;
  let current = created.etag;
  for (const form of ["quoted", "bare"] as const) {
    const matched = await put("b", { IfMatch: ifMatchValue(created.etag, form) });
    if (matched.status !== 200) continue;
    current = matched.etag;
    // `created.etag` is stale now: a server that enforces this form refuses it.
    if ((await put("c", { IfMatch: ifMatchValue(created.etag, form) })).status === 412) ifMatch = form;
    break;
  }
  let copyIfNoneMatch = false;
  try {
    await client.send(
      new CopyObjectCommand({
        Bucket: bucket,
        Key: key,
        CopySource: copySourceOf(bucket, key),
        IfNoneMatch: "*",
        MetadataDirective: "REPLACE",
        ContentType: "text/plain",
      }),
    );
  } catch (error) {
    // Anything but a 412 leaves copies to the fallback, which is safe wherever PutObject's condition is.
    copyIfNoneMatch = statusOf(error) === 412;
  }
  let createdAbsent = false;
  if (ifMatch !== null) {
    // If-Match on a key that does not exist must not create it.
    const onMissing = await put("d", { IfMatch: ifMatchValue(current, ifMatch) }, absent);
    if (onMissing.status === 200) {
      ifMatch = null;
      createdAbsent = true;
    }
  }
  await Promise.all([remove(key), createdAbsent ? remove(absent) : undefined]);
  return { ifNoneMatch, ifMatch, copyIfNoneMatch };
}

/**
 * How old a probe's object must be before a store removes it as left over: far longer than any probe
 * runs, so a store never deletes the scratch key of another process measuring at the same time.
 */
export const STALE_PROBE_MS = 60 * 60 * 1000;

/** The keys among `objects` (listed under a probe prefix) written before `now - STALE_PROBE_MS`. */
export const staleProbes = (objects: readonly ObjectSummary[], now: number): string[] =>
  objects.filter((o) => o.modified !== undefined && o.modified < now - STALE_PROBE_MS).map((o) => o.key);

/** Measurements shared by every store over the same client and bucket (for example one store per tenant). */
const measured = new WeakMap<S3Client, Map<string, Promise<ServerConditions>>>();

/**
 * The conditions of `bucket` behind `client`, measured once per client and bucket (again when `fresh`);
 * a measurement that failed is not kept, so the next call tries again.
 */
export function conditionsOf(
  client: S3Client,
  bucket: string,
  scratchKey: () => string,
  fresh = false,
): Promise<ServerConditions> {
  const byBucket = measured.get(client) ?? new Map<string, Promise<ServerConditions>>();
  measured.set(client, byBucket);
  const known = byBucket.get(bucket);
  if (known && !fresh) return known;
  const probe = probeConditions(client, bucket, scratchKey());
  byBucket.set(bucket, probe);
  probe.catch(() => {
    if (byBucket.get(bucket) === probe) byBucket.delete(bucket);
  });
  return probe;
}
