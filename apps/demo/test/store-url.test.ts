import { describe, expect, it } from "vitest";
import { parseCli, UsageError } from "../src/cli.js";
import { decodeKey, StoreSetupError } from "../src/open-store.js";
import { describeStore, parseStoreUrl, redact, StoreUrlError } from "../src/store-url.js";

const fails = (url: string): string => {
  try {
    parseStoreUrl(url);
  } catch (error) {
    expect(error).toBeInstanceOf(StoreUrlError);
    return (error as Error).message;
  }
  throw new Error(`${url} was accepted`);
};

describe("parseStoreUrl", () => {
  it("reads fs directories, relative or absolute", () => {
    expect(parseStoreUrl("fs:./memory-demo")).toEqual({ kind: "fs", root: "./memory-demo" });
    expect(parseStoreUrl("fs:/var/lib/memory")).toEqual({ kind: "fs", root: "/var/lib/memory" });
    expect(parseStoreUrl("fs://tmp/x")).toEqual({ kind: "fs", root: "tmp/x" });
  });

  it("reads redis URLs, the path being the key prefix", () => {
    expect(parseStoreUrl("redis://127.0.0.1:6380/demo:")).toEqual({
      kind: "redis",
      url: "redis://127.0.0.1:6380",
      prefix: "demo:",
    });
    expect(parseStoreUrl("rediss://cache.example.com:6380")).toEqual({
      kind: "redis",
      url: "rediss://cache.example.com:6380",
      prefix: "mem-demo/",
    });
    expect(parseStoreUrl("redis://user:p%40ss@localhost:6379/team%2Fa")).toEqual({
      kind: "redis",
      url: "redis://user:p%40ss@localhost:6379",
      prefix: "team/a",
    });
  });

  it("reads s3 URLs with their endpoint, region and addressing style", () => {
    expect(parseStoreUrl("s3://notes/demo?endpoint=http://127.0.0.1:9000")).toEqual({
      kind: "s3",
      bucket: "notes",
      prefix: "demo/",
      endpoint: "http://127.0.0.1:9000",
      region: undefined,
      forcePathStyle: true,
    });
    expect(parseStoreUrl("s3://my.bucket-1/a/b/?region=eu-west-1")).toEqual({
      kind: "s3",
      bucket: "my.bucket-1",
      prefix: "a/b/",
      endpoint: undefined,
      region: "eu-west-1",
      forcePathStyle: false,
    });
    expect(parseStoreUrl("s3://bkt?endpoint=https://r2.example.com&forcePathStyle=false")).toMatchObject({
      prefix: "mem-demo/",
      forcePathStyle: false,
    });
  });

  it("wraps any store in encryption once", () => {
    expect(parseStoreUrl("encrypted+fs:./secret")).toEqual({
      kind: "encrypted",
      inner: { kind: "fs", root: "./secret" },
    });
    expect(parseStoreUrl("encrypted+redis://h:1/p")).toEqual({
      kind: "encrypted",
      inner: { kind: "redis", url: "redis://h:1", prefix: "p" },
    });
    expect(fails("encrypted+encrypted+fs:x")).toMatch(/only once/);
  });

  it("rejects unknown schemes and malformed URLs with a message that shows the accepted forms", () => {
    expect(fails("ftp://x/y")).toBe(
      'Unknown store URL scheme "ftp:". Use one of: fs:<directory>, redis://host:port/<prefix>, s3://<bucket>/<prefix>?endpoint=<url>&region=<region>, encrypted+<one of the above>.',
    );
    expect(fails("./memory")).toMatch(/has no scheme/);
    expect(fails("")).toMatch(/has no scheme/);
    expect(fails("fs:")).toMatch(/needs a directory/);
    expect(fails("redis://")).toMatch(/redis:\/\//);
    expect(fails("redis://h:1/p?db=2")).toMatch(/takes no query/);
    expect(fails("redis://h:99999/p")).toMatch(/malformed/);
    expect(fails("redis://h:1/%E0%A4%A")).toMatch(/percent-encoding/);
  });

  it("rejects bad s3 URLs", () => {
    expect(fails("s3://Bad_Bucket/x")).toMatch(/not a valid bucket name/);
    expect(fails("s3://ab/x")).toMatch(/not a valid bucket name/);
    expect(fails("s3://bucket:9000/x")).toMatch(/\?endpoint=/);
    expect(fails("s3://bucket/x?endpoint=localhost:9000")).toMatch(/http:\/\/ or https:\/\//);
    expect(fails("s3://bucket/x?acl=public")).toMatch(/unknown s3 option "acl"/);
    expect(fails("s3://bucket/x?forcePathStyle=yes")).toMatch(/"true" or "false"/);
    expect(fails("s3://AKIA:secret@bucket/x")).toMatch(/AWS_ACCESS_KEY_ID/);
  });

  it("never repeats credentials in its messages", () => {
    expect(fails("redis://user:hunter2@:1/x")).not.toContain("hunter2");
    expect(fails("s3://AKIA:hunter2@bucket/x")).not.toContain("hunter2");
    expect(redact("redis://user:hunter2@host:1/p")).toBe("redis://***@host:1/p");
  });
});

describe("describeStore", () => {
  it("names the backend without credentials", () => {
    expect(describeStore(parseStoreUrl("encrypted+redis://u:hunter2@h:1/p"))).toBe(
      'Redis redis://***@h:1, prefix "p", encrypted',
    );
    expect(describeStore(parseStoreUrl("s3://bkt/p?endpoint=http://127.0.0.1:9000"))).toBe(
      'S3 bucket bkt, prefix "p/" at http://127.0.0.1:9000',
    );
    expect(describeStore(parseStoreUrl("fs:./m"))).toBe("directory ./m");
  });
});

describe("decodeKey", () => {
  it("accepts base64 of exactly 32 bytes", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(decodeKey(key)).toEqual(new Uint8Array(32).fill(7));
  });

  it("explains a missing or wrong key without showing it", () => {
    expect(() => decodeKey(undefined)).toThrow(StoreSetupError);
    expect(() => decodeKey("")).toThrow(/set MEMORY_KEY/);
    const short = Buffer.alloc(16, 1).toString("base64");
    expect(() => decodeKey(short)).toThrow("MEMORY_KEY must be base64 of exactly 32 bytes.");
    expect(() => decodeKey("not base64 at all!")).toThrow("MEMORY_KEY must be base64 of exactly 32 bytes.");
  });
});

describe("parseCli", () => {
  it("has defaults for everything", () => {
    expect(parseCli([])).toEqual({
      store: "fs:./memory-demo",
      model: "claude-sonnet-5-5",
      keep: false,
      offline: false,
      help: false,
    });
  });

  it("reads the options, also after the -- that pnpm passes on", () => {
    expect(parseCli(["--", "--store", "redis://h:1/p", "--keep", "--model", "m", "--offline"])).toEqual({
      store: "redis://h:1/p",
      model: "m",
      keep: true,
      offline: true,
      help: false,
    });
    expect(parseCli(["-h"]).help).toBe(true);
  });

  it("rejects unknown options and stray arguments", () => {
    expect(() => parseCli(["--stor", "x"])).toThrow(UsageError);
    expect(() => parseCli(["fs:./x"])).toThrow(UsageError);
    expect(() => parseCli(["--store"])).toThrow(UsageError);
  });
});
