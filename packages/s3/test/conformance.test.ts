import { GetObjectCommand } from "@aws-sdk/client-s3";
import { runConformance } from "@mem/conformance";
import { afterAll, beforeAll } from "vitest";
import { S3Store } from "../src/index.js";
import { freshPrefix, type S3Fixture, startFixture } from "./helpers.js";

// Conditional writes are enforced by the testkit proxy in front of s3rver, as real S3 enforces them.
let fx: S3Fixture;

beforeAll(async () => {
  fx = await startFixture();
});

afterAll(async () => {
  await fx?.stop();
});

const prefixes = new WeakMap<S3Store, string>();

runConformance<S3Store>({
  name: "S3Store (s3rver behind the conditional-write proxy)",
  create: () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    prefixes.set(store, prefix);
    return store;
  },
  peer: (store) =>
    new S3Store({
      clientConfig: {
        endpoint: fx.server.endpoint,
        region: fx.server.region,
        credentials: fx.server.credentials,
        forcePathStyle: true,
      },
      bucket: fx.server.bucket,
      prefix: prefixes.get(store)!,
    }),
  destroy: async (store) => {
    await store.delete("/memories");
    await store.close();
  },
  tenants: true,
  // Resolution 0: every view records its access, so the suite's exact boundaries hold.
  createExpiring: (expiry) => {
    const prefix = freshPrefix();
    const store = new S3Store({
      client: fx.client,
      bucket: fx.server.bucket,
      prefix,
      accessResolutionSeconds: 0,
      ...expiry,
    });
    prefixes.set(store, prefix);
    return store;
  },
  erasure: {
    tenantKeyOrder: true,
    // Every object under the store's prefix (the tenants' objects all lie beneath it), key and body.
    dump: async (store) => {
      const prefix = prefixes.get(store)!;
      const keys = await fx.keys(prefix);
      return Promise.all(
        keys.map(async (key) => {
          const object = await fx.direct.send(new GetObjectCommand({ Bucket: fx.server.bucket, Key: key }));
          return { key, value: (await object.Body?.transformToString("latin1")) ?? "" };
        }),
      );
    },
  },
});
