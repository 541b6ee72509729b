/**
 * Bulk seeding for S3 namespaces: PutObject straight to s3rver, many at once, in the `{prefix}{path}`
 * layout both S3Store and the raw baseline read. The listing trees are read-only, so S3Store and raw S3
 * list the same tree: whichever runs first seeds it and leaves a marker object for the other.
 */
import { HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { forEachBounded } from "./stats.js";
import { type ChildEnv, relativeOf } from "./subject.js";

const isShared = (ns: string) => ns.startsWith("list-");

/** The key prefix of namespace `ns` for an implementation whose own namespaces start with `own`. */
export const s3PrefixOf = (ns: string, own: string): string =>
  isShared(ns) ? `shared-${ns}/` : `${own}${ns}/`;

export const s3BulkSeeder = (env: ChildEnv, own: string) => {
  let client: S3Client | undefined;
  const seed = async (ns: string, files: readonly { path: string; text: string }[]): Promise<void> => {
    const s3 = env.s3;
    if (!s3) throw new Error("no S3 server");
    client ??= new S3Client({
      endpoint: s3.directEndpoint,
      region: s3.region,
      credentials: s3.credentials,
      forcePathStyle: true,
    });
    const direct = client;
    const marker = `bench-seeded/${ns}`;
    if (isShared(ns)) {
      try {
        await direct.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: marker }));
        return;
      } catch {
        // not seeded yet
      }
    }
    const prefix = s3PrefixOf(ns, own);
    await forEachBounded(files, 16, async ({ path, text }) => {
      await direct.send(
        new PutObjectCommand({ Bucket: s3.bucket, Key: prefix + relativeOf(path), Body: text }),
      );
    });
    if (isShared(ns)) await direct.send(new PutObjectCommand({ Bucket: s3.bucket, Key: marker, Body: "" }));
  };
  return { seed, destroy: () => client?.destroy() };
};
