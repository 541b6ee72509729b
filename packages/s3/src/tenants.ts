/**
 * `tenants()` and `purge()` of `S3Store`. A store's tenants are the common prefixes of
 * `{prefix}.mem-s3-tenants/`: one `ListObjectsV2` with a delimiter gives a page of them. A tenant's
 * objects are every key under its prefix (its files, hidden files, rename journals, access index,
 * probes and nested tenants), listed and deleted in batches of 1,000 until none is left.
 */
import { ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import type { PurgeResult, TenantPage } from "@mem/core";
import type { Bucket } from "./bucket.js";
import { toStoreFailure } from "./failure.js";
import { RESERVED_NAMES, TENANTS_NAME } from "./keys.js";

/**
 * One page of the tenants under `tenantsPrefix` (`{prefix}.mem-s3-tenants/`): one request. Pages follow
 * the bucket's key order, which is the byte order of `id + "/"`: it differs from the byte order of ids only
 * where one id extends another by `+`, `-` or `.` (`a.b/` sorts before `a/`).
 */
export async function listTenants(
  client: S3Client,
  bucket: string,
  tenantsPrefix: string,
  after: string | undefined,
  limit: number,
): Promise<TenantPage> {
  try {
    const out = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: tenantsPrefix,
        Delimiter: "/",
        MaxKeys: limit,
        // Every key of tenant `after` starts with `…/after/`: `…/after0` (`0` follows `/`) is past them all.
        ...(after === undefined ? {} : { StartAfter: `${tenantsPrefix}${after}0` }),
      }),
    );
    const ids = (out.CommonPrefixes ?? [])
      .map((p) => p.Prefix?.slice(tenantsPrefix.length, -1))
      .filter((id): id is string => id !== undefined && id !== "");
    const tenants = ids.slice(0, limit).map((id) => ({ id }));
    const last = tenants[tenants.length - 1];
    return out.IsTruncated && last ? { tenants, next: last.id } : { tenants };
  } catch (error) {
    throw toStoreFailure("ListObjectsV2", error);
  }
}

/** A key's object is a memory file of some tenant (not bookkeeping) when no segment below the prefix is reserved but the tenants folder. */
const isFile = (rest: string): boolean =>
  rest.split("/").every((segment) => segment === TENANTS_NAME || !RESERVED_NAMES.has(segment));

/**
 * Erases every object under `prefix`: lists (1,000 keys a request), deletes the batch, and lists again
 * until nothing is left, so objects a rename in flight copied meanwhile go too. Resumable: what an
 * interrupted purge left is still under the prefix. Counts memory files and bytes, its own and its
 * nested tenants'. With `dryRun` only counts.
 */
export async function purgePrefix(bucket: Bucket, prefix: string, dryRun: boolean): Promise<PurgeResult> {
  let files = 0;
  let bytes = 0;
  const counted = new Set<string>();
  for (let round = 0; round < 100; round++) {
    const objects = await bucket.listAll(prefix);
    for (const object of objects) {
      if (counted.has(object.key) || !isFile(object.key.slice(prefix.length))) continue;
      counted.add(object.key);
      files += 1;
      bytes += object.size;
    }
    if (dryRun || objects.length === 0) break;
    await bucket.deleteMany(objects.map((o) => o.key));
  }
  return { files, bytes };
}
