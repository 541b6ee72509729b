import {
  CopyObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RgwServer, startRgw } from "../src/index.js";

let rgw: RgwServer;
let client: S3Client;

beforeAll(async () => {
  rgw = await startRgw();
  client = new S3Client({
    endpoint: rgw.endpoint,
    region: rgw.region,
    credentials: rgw.credentials,
    forcePathStyle: true,
    maxAttempts: 1,
  });
}, 120_000);

afterAll(async () => {
  client?.destroy();
  await rgw?.stop();
});

const status = async (send: Promise<unknown>): Promise<number> => {
  try {
    await send;
    return 200;
  } catch (error) {
    if (error instanceof S3ServiceException) return error.$metadata.httpStatusCode ?? -1;
    throw error;
  }
};

const body = async (key: string) =>
  (await client.send(new GetObjectCommand({ Bucket: rgw.bucket, Key: key }))).Body?.transformToString();

// The behaviours S3Store has to work around on RGW, pinned so a change of server version is noticed.
describe("Ceph RGW as started by the testkit", () => {
  it("stores and lists objects in its bucket", async () => {
    await client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "p/a", Body: "a" }));
    const listed = await client.send(new ListObjectsV2Command({ Bucket: rgw.bucket, Prefix: "p/" }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(["p/a"]);
    expect(await body("p/a")).toBe("a");
  });

  it("enforces If-None-Match: * on PutObject", async () => {
    await client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "inm", Body: "1", IfNoneMatch: "*" }));
    expect(
      await status(
        client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "inm", Body: "2", IfNoneMatch: "*" })),
      ),
    ).toBe(412);
    expect(await body("inm")).toBe("1");
  });

  it("accepts If-Match only with an unquoted ETag, and answers 412 for a missing key", async () => {
    await client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "im", Body: "1" }));
    const etag = (await client.send(new HeadObjectCommand({ Bucket: rgw.bucket, Key: "im" }))).ETag ?? "";
    expect(etag.startsWith('"')).toBe(true);
    expect(
      await status(
        client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "im", Body: "2", IfMatch: etag })),
      ),
    ).toBe(412);
    const bare = etag.replaceAll('"', "");
    expect(
      await status(
        client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "im", Body: "3", IfMatch: bare })),
      ),
    ).toBe(200);
    expect(
      await status(
        client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "im", Body: "4", IfMatch: bare })),
      ),
    ).toBe(412);
    expect(await body("im")).toBe("3");
    expect(
      await status(
        client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "none", Body: "x", IfMatch: bare })),
      ),
    ).toBe(412);
  });

  it("overwrites on CopyObject with If-None-Match: * (the precondition is ignored)", async () => {
    await client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "src", Body: "new" }));
    await client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: "dst", Body: "old" }));
    const copy = new CopyObjectCommand({
      Bucket: rgw.bucket,
      Key: "dst",
      CopySource: `${rgw.bucket}/src`,
      IfNoneMatch: "*",
    });
    expect(await status(client.send(copy))).toBe(200);
    expect(await body("dst")).toBe("new");
  });
});
