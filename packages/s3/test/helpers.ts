/** A real S3 server (s3rver behind the enforcing proxy of @mem/testkit) and stores over it. */
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { type S3TestServer, startS3 } from "@mem/testkit";
import { S3Store } from "../src/index.js";

export interface S3Fixture {
  server: S3TestServer;
  /** A client through the proxy (conditional writes enforced, requests counted). */
  client: S3Client;
  /** A client straight to s3rver, for seeding and inspecting without counting. */
  direct: S3Client;
  /** A store over a fresh prefix, or over `prefix` when given. */
  store(prefix?: string): S3Store;
  /**
   * A store over `prefix` (default: a fresh one) with a client of its own through the proxy, made with
   * `options` (`maxAttempts: 1` turns the SDK's retries off), its server already probed (`check()`, whose
   * requests are then cleared from the log), so the faults and counts of a test meet only its own
   * requests; close it when done.
   */
  ownStore(options: { maxAttempts: number; requestTimeout?: number }, prefix?: string): Promise<S3Store>;
  /** Every object under `prefix` with its body, read straight from s3rver: the stored tree. */
  tree(prefix: string): Promise<Record<string, string>>;
  /** Every key under `prefix` (listed through the proxy: s3rver alone cannot paginate on Node >= 17). */
  keys(prefix: string): Promise<string[]>;
  /** Stores objects straight into s3rver (no HTTP, no proxy, nothing counted). */
  seed(objects: { key: string; body: string }[]): Promise<void>;
  stop(): Promise<void>;
}

let counter = 0;
export const freshPrefix = (): string => `t${process.pid}-${++counter}/`;

export async function startFixture(): Promise<S3Fixture> {
  const server = await startS3();
  const config = (endpoint: string) => ({
    endpoint,
    region: server.region,
    credentials: server.credentials,
    forcePathStyle: true,
    maxAttempts: 3,
  });
  const client = new S3Client(config(server.endpoint));
  const direct = new S3Client(config(server.directEndpoint));
  // Stores sharing `client` probe its conditional writes once: done here, before any test injects faults.
  await new S3Store({ client, bucket: server.bucket, prefix: freshPrefix() }).check();
  return {
    server,
    client,
    direct,
    store: (prefix = freshPrefix()) => new S3Store({ client, bucket: server.bucket, prefix }),
    async ownStore({ maxAttempts, requestTimeout }, prefix = freshPrefix()) {
      const store = new S3Store({
        clientConfig: {
          ...config(server.endpoint),
          maxAttempts,
          ...(requestTimeout === undefined ? {} : { requestHandler: { requestTimeout } }),
        },
        bucket: server.bucket,
        prefix,
      });
      await store.check();
      server.requests.reset();
      return store;
    },
    async tree(prefix) {
      const out: Record<string, string> = {};
      const listed = await direct.send(new ListObjectsV2Command({ Bucket: server.bucket, Prefix: prefix }));
      if (listed.IsTruncated) throw new Error("tree() reads at most 1,000 keys");
      for (const { Key } of listed.Contents ?? []) {
        const object = await direct.send(new GetObjectCommand({ Bucket: server.bucket, Key }));
        out[Key!.slice(prefix.length)] = (await object.Body?.transformToString()) ?? "";
      }
      return out;
    },
    async keys(prefix) {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({
            Bucket: server.bucket,
            Prefix: prefix,
            ...(token ? { ContinuationToken: token } : {}),
          }),
        );
        out.push(...(page.Contents ?? []).map((o) => o.Key!));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out.sort();
    },
    seed: (objects) => server.seed(objects),
    async stop() {
      client.destroy();
      direct.destroy();
      await server.stop();
    },
  };
}
