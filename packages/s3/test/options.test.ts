import { S3Client } from "@aws-sdk/client-s3";
import { StoreFailureError } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Store, type S3StoreOptions } from "../src/index.js";
import { freshPrefix, type S3Fixture, startFixture } from "./helpers.js";

const make = (options: unknown) => () => new S3Store(options as S3StoreOptions);

describe("S3Store options", () => {
  const client = new S3Client({ region: "us-east-1" });
  afterAll(() => client.destroy());

  it("rejects bad options with a TypeError naming the option and what is allowed", () => {
    expect(make(null)).toThrow(new TypeError("S3Store: options must be an object, not null"));
    expect(make({ client })).toThrow(new TypeError('S3Store: option "bucket" must be given'));
    expect(make({ client, bucket: "" })).toThrow(
      new TypeError('S3Store: option "bucket" must be a non-empty string'),
    );
    expect(make({ bucket: "b" })).toThrow(
      new TypeError('S3Store: give exactly one of the options "client" or "clientConfig"'),
    );
    expect(make({ bucket: "b", client, clientConfig: {} })).toThrow(TypeError);
    expect(make({ bucket: "b", client, prefix: "tenant" })).toThrow(
      new TypeError('S3Store: option "prefix" must be empty or ending with "/"'),
    );
    expect(make({ bucket: "b", clientConfig: "us-east-1" })).toThrow(
      new TypeError('S3Store: option "clientConfig" must be an object'),
    );
    expect(make({ bucket: "b", client, copyConcurrency: 0 })).toThrow(
      new TypeError('S3Store: option "copyConcurrency" must be an integer >= 1'),
    );
  });
});

describe("S3Store.check", () => {
  let fx: S3Fixture;
  beforeAll(async () => {
    fx = await startFixture();
  });
  afterAll(async () => {
    await fx?.stop();
  });

  it("passes on an existing bucket: one listing, the server's conditional writes measured again, one listing of old probes", async () => {
    const store = fx.store();
    fx.server.requests.reset();
    await expect(store.check()).resolves.toBeUndefined();
    expect(fx.server.requests.counts()).toEqual({
      ListObjectsV2: 2,
      PutObject: 5,
      CopyObject: 1,
      DeleteObject: 1,
    });
  });

  it("fails fast on a missing bucket", async () => {
    const store = new S3Store({ client: fx.client, bucket: "no-such-bucket", prefix: freshPrefix() });
    const failure = await store.check().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreFailureError);
    expect((failure as StoreFailureError).reason).toBe("S3 ListObjectsV2 returned HTTP 404 (NoSuchBucket)");
  });

  it("fails fast on an unreachable endpoint", async () => {
    const store = new S3Store({
      clientConfig: {
        endpoint: "http://127.0.0.1:1",
        region: "us-east-1",
        credentials: { accessKeyId: "AKIAEXAMPLEKEY", secretAccessKey: "secret-example" },
        forcePathStyle: true,
        maxAttempts: 1,
      },
      bucket: "b",
    });
    try {
      await expect(store.check()).rejects.toThrow(new StoreFailureError("connection refused"));
    } finally {
      await store.close();
    }
  });
});
