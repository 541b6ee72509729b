import { FakeClock } from "@mem/conformance";
import { executeCommand } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Store } from "../src/index.js";
import { freshPrefix, type S3Fixture, startFixture } from "./helpers.js";

let fx: S3Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await fx?.stop();
});

const create = (path: string, text: string) => ({ command: "create", path, file_text: text });

describe("S3Store tenants", () => {
  it("keeps each tenant under {prefix}.mem-s3-tenants/{tenant}/ on the parent's client", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    const alice = store.scope("alice");
    await executeCommand(alice, create("/memories/d/a.md", "hi\n"));
    expect(await fx.keys(prefix)).toEqual([`${prefix}.mem-s3-tenants/alice/d/a.md`]);
    expect(await store.usage()).toEqual({ files: 0, bytes: 0 });
    expect(await store.list("/memories", 2)).toEqual({ size: 0, entries: [] });
    expect(
      await executeCommand(store, { command: "view", path: "/memories/.mem-s3-tenants/alice/d/a.md" }),
    ).toEqual({
      content:
        "Error: The path /memories/.mem-s3-tenants/alice/d/a.md is not allowed: it uses a reserved name",
      isError: true,
    });
    // Deleting everything of the parent leaves its tenants alone.
    await executeCommand(store, create("/memories/x", "x"));
    expect(await store.delete("/memories")).toBe(true);
    expect(await alice.usage()).toEqual({ files: 1, bytes: 3 });
  });

  it("makes no request and no client for a scope: 10,000 scopes, then a command on one of them", async () => {
    const store = fx.store();
    fx.server.requests.reset();
    const scopes = Array.from({ length: 10_000 }, (_, i) => store.scope(`t-${i}`));
    expect(fx.server.requests.counts()).toEqual({});
    await executeCommand(scopes[9_999]!, create("/memories/a", "x"));
    expect(fx.server.requests.counts()).toEqual({ ListObjectsV2: 1, PutObject: 1 });
    await scopes[0]!.close();
    expect((await executeCommand(store, { command: "view", path: "/memories" })).isError).toBe(false);
  });
});

describe("S3Store expiry (access-time index)", () => {
  const expiring = (clock: FakeClock, accessResolutionSeconds?: number) =>
    new S3Store({
      client: fx.client,
      bucket: fx.server.bucket,
      prefix: freshPrefix(),
      expireAfterSeconds: 100,
      clock: clock.now,
      ...(accessResolutionSeconds === undefined ? {} : { accessResolutionSeconds }),
    });

  it("records a view at most once per resolution, and expires files at most one resolution late, never early", async () => {
    const clock = new FakeClock();
    const store = expiring(clock); // resolution 60 s
    await executeCommand(store, create("/memories/a.md", "a\n"));
    clock.advance(30);
    fx.server.requests.reset();
    await executeCommand(store, { command: "view", path: "/memories/a.md" });
    // The file and the index, read together; no index update within the resolution.
    expect(fx.server.requests.counts()).toEqual({ GetObject: 2 });
    clock.advance(100 + 30); // 160 s after the recorded create: within limit + resolution
    expect((await executeCommand(store, { command: "view", path: "/memories/b.md" })).isError).toBe(true);
    fx.server.requests.reset();
    expect((await executeCommand(store, { command: "view", path: "/memories/a.md" })).isError).toBe(false);
    // Recorded this time: the index was read, then read again and written conditionally.
    expect(fx.server.requests.counts()).toEqual({ GetObject: 3, PutObject: 1 });
    clock.advance(161);
    expect((await executeCommand(store, { command: "view", path: "/memories/a.md" })).isError).toBe(true);
  });

  it("keeps the index right under concurrent writers from several store instances", async () => {
    const clock = new FakeClock();
    const prefix = freshPrefix();
    const make = () =>
      new S3Store({
        client: fx.client,
        bucket: fx.server.bucket,
        prefix,
        expireAfterSeconds: 100,
        clock: clock.now,
      });
    const stores = [make(), make(), make(), make()];
    await Promise.all(stores.map((s, i) => executeCommand(s, create(`/memories/f${i}.md`, `${i}\n`))));
    const index = JSON.parse(new TextDecoder().decode(await fetchIndex(prefix))) as {
      times: Record<string, number>;
    };
    expect(Object.keys(index.times).sort()).toEqual([
      "/memories/f0.md",
      "/memories/f1.md",
      "/memories/f2.md",
      "/memories/f3.md",
    ]);
  });

  it("records files written without expiry at the first sweep, and expires them from then on", async () => {
    const clock = new FakeClock();
    const prefix = freshPrefix();
    await executeCommand(fx.store(prefix), create("/memories/old.md", "old\n"));
    const store = new S3Store({
      client: fx.client,
      bucket: fx.server.bucket,
      prefix,
      expireAfterSeconds: 100,
      clock: clock.now,
    });
    clock.advance(1_000);
    expect(await store.sweep()).toEqual({ paths: [], bytes: 0 });
    clock.advance(161);
    expect(await store.sweep()).toEqual({ paths: ["/memories/old.md"], bytes: 4 });
    expect(await fx.keys(prefix)).toEqual([`${prefix}.mem-s3-access.json`]);
  });
});

const fetchIndex = async (prefix: string): Promise<Uint8Array> => {
  const { GetObjectCommand } = await import("@aws-sdk/client-s3");
  const out = await fx.direct.send(
    new GetObjectCommand({ Bucket: fx.server.bucket, Key: `${prefix}.mem-s3-access.json` }),
  );
  return out.Body!.transformToByteArray();
};
