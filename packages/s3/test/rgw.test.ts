/**
 * S3Store on a real Ceph RADOS Gateway (16.2 in Debian bookworm), a production S3 server that differs
 * from AWS: If-Match only with the unquoted ETag, a 500 instead of a 412 for the losers of concurrent
 * If-Match writes, and CopyObject that ignores If-None-Match. The conformance suite and the concurrency
 * checks run on it as they run on the s3rver proxy.
 */
import { GetObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import { runConformance } from "@mem/conformance";
import { executeCommand } from "@mem/core";
import { type RgwServer, startRgw } from "@mem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bucket } from "../src/bucket.js";
import { probeConditions } from "../src/conditions.js";
import { S3Store } from "../src/index.js";
import { freshPrefix } from "./helpers.js";

let rgw: RgwServer;
let client: S3Client;

const config = (extra: Partial<S3ClientConfig> = {}): S3ClientConfig => ({
  endpoint: rgw.endpoint,
  region: rgw.region,
  credentials: rgw.credentials,
  forcePathStyle: true,
  ...extra,
});

beforeAll(async () => {
  rgw = await startRgw();
  client = new S3Client(config());
}, 120_000);

afterAll(async () => {
  client?.destroy();
  await rgw?.stop();
});

const prefixes = new WeakMap<S3Store, string>();

runConformance<S3Store>({
  name: "S3Store (Ceph RGW)",
  create: () => {
    const prefix = freshPrefix();
    const store = new S3Store({ client, bucket: rgw.bucket, prefix });
    prefixes.set(store, prefix);
    return store;
  },
  peer: (store) => new S3Store({ clientConfig: config(), bucket: rgw.bucket, prefix: prefixes.get(store)! }),
  destroy: async (store) => {
    await store.delete("/memories");
    await store.close();
  },
  options: { timeout: 120_000 },
});

const body = async (key: string) =>
  (await client.send(new GetObjectCommand({ Bucket: rgw.bucket, Key: key }))).Body?.transformToString();

describe("S3Store on Ceph RGW", () => {
  it("measures If-Match as enforced unquoted only, and CopyObject as ignoring If-None-Match", async () => {
    const conditions = await probeConditions(client, rgw.bucket, `${freshPrefix()}.mem-s3-probe/x`);
    expect(conditions).toEqual({ ifNoneMatch: true, ifMatch: "bare", copyIfNoneMatch: false });
  });

  it("never copies over a destination that appeared after the store looked", async () => {
    const prefix = freshPrefix();
    await new S3Store({ client, bucket: rgw.bucket, prefix }).check();
    const bucket = new Bucket(client, rgw.bucket);
    bucket.conditions = { ifNoneMatch: true, ifMatch: "bare", copyIfNoneMatch: false };
    await client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: `${prefix}src`, Body: "new" }));
    await client.send(new PutObjectCommand({ Bucket: rgw.bucket, Key: `${prefix}dst`, Body: "old" }));
    expect(await bucket.copyIfAbsent(`${prefix}src`, `${prefix}dst`)).toBe("exists");
    expect(await body(`${prefix}dst`)).toBe("old");
    expect(await bucket.copyIfAbsent(`${prefix}src`, `${prefix}other`)).toBe("copied");
    expect(await body(`${prefix}other`)).toBe("new");
    expect(await bucket.copyIfAbsent(`${prefix}gone`, `${prefix}third`)).toBe("missing");
  });

  it("loses no edit when 32 stores without SDK retries race on one file, 500s included", async () => {
    const prefix = freshPrefix();
    const path = "/memories/race.md";
    const first = new S3Store({ client, bucket: rgw.bucket, prefix });
    await executeCommand(first, { command: "create", path, file_text: "" });
    let internalErrors = 0;
    const stores = Array.from({ length: 32 }, () => {
      const own = new S3Client(config({ maxAttempts: 1 }));
      own.middlewareStack.add(
        (next) => async (args) => {
          try {
            return await next(args);
          } catch (error) {
            if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 500)
              internalErrors++;
            throw error;
          }
        },
        { step: "initialize", name: "countInternalErrors" },
      );
      return { own, store: new S3Store({ client: own, bucket: rgw.bucket, prefix }) };
    });
    try {
      // Rounds until RGW has answered some loser with a 500, so that path is known to be taken.
      const expected: string[] = [];
      for (let round = 0; round < 5 && (round === 0 || internalErrors === 0); round++) {
        const results = await Promise.all(
          stores.map(({ store }, i) =>
            executeCommand(store, { command: "insert", path, insert_line: 0, insert_text: `r${round}-${i}` }),
          ),
        );
        expect(results.filter((r) => r.isError)).toEqual([]);
        expected.push(...stores.map((_, i) => `r${round}-${i}`));
      }
      expect(internalErrors).toBeGreaterThan(0);
      const lines = (await body(`${prefix}race.md`))!.split("\n").filter((l) => l !== "");
      expect(lines.sort()).toEqual(expected.sort());
    } finally {
      for (const { own } of stores) own.destroy();
    }
  }, 120_000);

  it("makes the documented number of requests per command", async () => {
    const counted = new S3Client(config());
    let counts: Record<string, number> = {};
    counted.middlewareStack.add(
      (next, context) => async (args) => {
        const name = String(context.commandName).replace(/Command$/, "");
        counts[name] = (counts[name] ?? 0) + 1;
        return next(args);
      },
      { step: "finalizeRequest", priority: "low", name: "countRequests" },
    );
    try {
      const store = new S3Store({ client: counted, bucket: rgw.bucket, prefix: freshPrefix() });
      const measure = async (input: Record<string, unknown>) => {
        counts = {};
        const result = await executeCommand(store, input);
        expect(result.isError, result.content).toBe(false);
        return counts;
      };
      // The first write of a client measures the server: 6 PutObject on RGW, whose If-Match works unquoted.
      expect(await measure({ command: "create", path: "/memories/notes.md", file_text: "one\n" })).toEqual({
        PutObject: 6 + 1,
        CopyObject: 1,
        DeleteObject: 1,
        ListObjectsV2: 1,
      });
      await measure({ command: "create", path: "/memories/dir/a.md", file_text: "a" });
      await measure({ command: "create", path: "/memories/dir/b.md", file_text: "b" });
      await measure({ command: "create", path: "/memories/dir/c.md", file_text: "c" });
      expect(
        await measure({ command: "str_replace", path: "/memories/notes.md", old_str: "one", new_str: "1" }),
      ).toEqual({ GetObject: 1, PutObject: 1 });
      expect(
        await measure({
          command: "rename",
          old_path: "/memories/notes.md",
          new_path: "/memories/renamed.md",
        }),
      ).toEqual({ ListObjectsV2: 2, GetObject: 1, PutObject: 1, DeleteObject: 1 });
      expect(
        await measure({ command: "rename", old_path: "/memories/dir", new_path: "/memories/moved" }),
      ).toEqual({
        ListObjectsV2: 3,
        PutObject: 1 + 3,
        GetObject: 3,
        DeleteObjects: 1,
        DeleteObject: 1,
      });
    } finally {
      counted.destroy();
    }
  });

  it("renames files and directories without overwriting, through GetObject and PutObject", async () => {
    const prefix = freshPrefix();
    const store = new S3Store({ client, bucket: rgw.bucket, prefix });
    const run = (input: Record<string, unknown>) => executeCommand(store, input);
    for (const [path, text] of [
      ["/memories/a.md", "A"],
      ["/memories/b.md", "B"],
      ["/memories/d/x.md", "X"],
      ["/memories/d/y.md", "Y"],
    ]) {
      expect((await run({ command: "create", path, file_text: text })).isError).toBe(false);
    }
    expect(await run({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" })).toEqual({
      content: "Error: The destination /memories/b.md already exists",
      isError: true,
    });
    expect(
      (await run({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/c.md" })).isError,
    ).toBe(false);
    expect((await run({ command: "rename", old_path: "/memories/d", new_path: "/memories/e" })).isError).toBe(
      false,
    );
    const view = await run({ command: "view", path: "/memories" });
    expect(view.content.split("\n").slice(1)).toEqual([
      "4B\t/memories",
      "1B\t/memories/b.md",
      "1B\t/memories/c.md",
      "2B\t/memories/e/",
      "1B\t/memories/e/x.md",
      "1B\t/memories/e/y.md",
    ]);
    expect(await body(`${prefix}c.md`)).toBe("A");
  });
});
