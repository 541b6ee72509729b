import {
  AlreadyExistsError,
  ConflictError,
  executeCommand,
  NotADirectoryError,
  NotFoundError,
  StoreFailureError,
} from "@mem/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { S3Store } from "../src/index.js";
import { freshPrefix, type S3Fixture, startFixture } from "./helpers.js";

let fx: S3Fixture;
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | undefined) => new TextDecoder().decode(data);

beforeAll(async () => {
  fx = await startFixture();
});

afterAll(async () => {
  await fx?.stop();
});

beforeEach(() => {
  fx.server.clearFailures();
  fx.server.requests.reset();
});

describe("S3Store basics", () => {
  it("maps paths to keys under the prefix and back", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    await store.write("/memories/a/b.md", bytes("hello"), { ifAbsent: true });
    expect(await fx.keys(prefix)).toEqual([`${prefix}a/b.md`]);
    expect(text((await store.read("/memories/a/b.md"))?.data)).toBe("hello");
    expect(await store.read("/memories/a")).toBeNull();
    expect(await store.read("/memories")).toBeNull();
  });

  it("derives directories from the keys beneath them", async () => {
    const store = fx.store();
    expect(await store.stat("/memories")).toEqual({ kind: "directory" });
    expect(await store.stat("/memories/a")).toBeNull();
    await store.write("/memories/a/b/c.txt", bytes("12345"), { ifAbsent: true });
    expect(await store.stat("/memories/a")).toEqual({ kind: "directory" });
    expect(await store.stat("/memories/a/b")).toEqual({ kind: "directory" });
    expect(await store.stat("/memories/a/b/c.txt")).toEqual({ kind: "file", size: 5 });
    expect(await store.delete("/memories/a/b/c.txt")).toBe(true);
    expect(await store.stat("/memories/a")).toBeNull();
    expect(await store.delete("/memories/a")).toBe(false);
  });

  it("tells a file from a sibling that sorts between it and its would-be children", async () => {
    const store = fx.store();
    await store.write("/memories/notes", bytes("file"), { ifAbsent: true });
    await store.write("/memories/notes.md", bytes("sibling"), { ifAbsent: true });
    await store.write("/memories/notes 2/x", bytes("dir"), { ifAbsent: true });
    await store.write("/memories/dir-a/x", bytes("x"), { ifAbsent: true });
    await store.write("/memories/dir/y", bytes("yy"), { ifAbsent: true });
    expect(await store.stat("/memories/notes")).toEqual({ kind: "file", size: 4 });
    expect(await store.stat("/memories/notes 2")).toEqual({ kind: "directory" });
    expect(await store.stat("/memories/dir")).toEqual({ kind: "directory" });
    expect(await store.stat("/memories/not")).toBeNull();
    expect(await store.delete("/memories/dir")).toBe(true);
    expect(await store.stat("/memories/dir-a/x")).toEqual({ kind: "file", size: 1 });
  });

  it("never lets a name be both a file and a directory", async () => {
    const store = fx.store();
    await store.write("/memories/a/b", bytes("x"), { ifAbsent: true });
    await expect(store.write("/memories/a/b/c/d", bytes("y"), { ifAbsent: true })).rejects.toEqual(
      new NotADirectoryError("/memories/a/b/c/d", "/memories/a/b"),
    );
    await expect(store.write("/memories/a", bytes("y"), { ifAbsent: true })).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    await expect(store.write("/memories/a/b", bytes("y"), { ifAbsent: true })).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    expect(text((await store.read("/memories/a/b"))?.data)).toBe("x");
    await expect(store.rename("/memories/a/b", "/memories/a")).rejects.toBeInstanceOf(AlreadyExistsError);
    await store.write("/memories/f", bytes("f"), { ifAbsent: true });
    await expect(store.rename("/memories/a", "/memories/f/g")).rejects.toEqual(
      new NotADirectoryError("/memories/f/g", "/memories/f"),
    );
    await expect(store.rename("/memories/zz", "/memories/q")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("writes edits only against the version they read", async () => {
    const store = fx.store();
    const { version: v1 } = await store.write("/memories/x", bytes("one"), { ifAbsent: true });
    const read = await store.read("/memories/x");
    expect(read?.version).toBe(v1);
    const { version: v2 } = await store.write("/memories/x", bytes("two"), { ifVersion: v1 });
    expect(v2).not.toBe(v1);
    await expect(store.write("/memories/x", bytes("three"), { ifVersion: v1 })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(store.write("/memories/gone", bytes("z"), { ifVersion: v1 })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(text((await store.read("/memories/x"))?.data)).toBe("two");
    expect(await store.read("/memories/gone")).toBeNull();
  });

  it("loses no update when instances edit one file concurrently", async () => {
    const prefix = freshPrefix();
    const stores = [fx.store(prefix), fx.store(prefix), fx.store(prefix)];
    await executeCommand(stores[0]!, { command: "create", path: "/memories/log.md", file_text: "start\n" });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        executeCommand(stores[i % 3]!, {
          command: "insert",
          path: "/memories/log.md",
          insert_line: 1,
          insert_text: `line ${i}\n`,
        }),
      ),
    );
    expect(results.every((r) => !r.isError)).toBe(true);
    const final = text((await stores[1]!.read("/memories/log.md"))?.data).split("\n");
    expect(final[0]).toBe("start");
    expect(final.filter((l) => l.startsWith("line ")).sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `line ${i}`).sort(),
    );
  });

  it("lets exactly one of many concurrent creates of one path win", async () => {
    const prefix = freshPrefix();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        fx.store(prefix).write("/memories/one", bytes(`w${i}`), { ifAbsent: true }),
      ),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === "rejected") expect(o.reason).toBeInstanceOf(AlreadyExistsError);
    }
  });

  it("keeps tenants apart by prefix", async () => {
    const a = fx.store("tenant-a/");
    const b = fx.store("tenant-b/");
    await a.write("/memories/secret", bytes("a"), { ifAbsent: true });
    expect(await b.read("/memories/secret")).toBeNull();
    expect((await b.list("/memories", 2))?.entries).toEqual([]);
    expect(await b.delete("/memories/secret")).toBe(false);
    expect(text((await a.read("/memories/secret"))?.data)).toBe("a");
  });

  it("reserves the journal name and refuses prefixes without a trailing slash", async () => {
    const store = fx.store();
    expect(store.isReservedName(".mem-s3-rename")).toBe(true);
    expect(store.isReservedName(".mem-s3")).toBe(false);
    const result = await executeCommand(store, {
      command: "create",
      path: "/memories/.mem-s3-rename/x",
      file_text: "x",
    });
    expect(result).toEqual({
      content: "Error: The path /memories/.mem-s3-rename/x is not allowed: it uses a reserved name",
      isError: true,
    });
    expect(() => new S3Store({ client: fx.client, bucket: fx.server.bucket, prefix: "no-slash" })).toThrow(
      /prefix/,
    );
  });
});

describe("keys with unusual names", () => {
  const names = [
    "with space.md",
    "plus+sign & more=1;$,@:.txt",
    "ünïcödé ☃ 日本語 🎉.md",
    "#hash?query'quote\"(paren)*!~.txt",
    "x".repeat(255),
  ];

  it("round-trip through create, view, list, rename and delete", async () => {
    const store = fx.store();
    for (const name of names) {
      const created = await executeCommand(store, {
        command: "create",
        path: `/memories/odd/${name}`,
        file_text: `content of ${name}\n`,
      });
      expect(created).toEqual({
        content: `File created successfully at: /memories/odd/${name}`,
        isError: false,
      });
      const viewed = await executeCommand(store, { command: "view", path: `/memories/odd/${name}` });
      expect(viewed.content).toContain(`     1\tcontent of ${name}`);
    }
    const listing = await store.list("/memories/odd", 1);
    expect(listing?.entries.map((e) => e.path).sort()).toEqual(names.map((n) => `/memories/odd/${n}`).sort());

    const deep = `/memories/${"d".repeat(200)}/${"e".repeat(200)}/${"f".repeat(200)}/long name ✓.md`;
    await store.write(deep, bytes("deep"), { ifAbsent: true });
    expect(text((await store.read(deep))?.data)).toBe("deep");

    const renamed = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/odd",
      new_path: "/memories/odd ünï+moved",
    });
    expect(renamed.isError).toBe(false);
    for (const name of names) {
      expect(text((await store.read(`/memories/odd ünï+moved/${name}`))?.data)).toBe(`content of ${name}\n`);
    }
    expect(await store.stat("/memories/odd")).toBeNull();
    await store.rename(`/memories/odd ünï+moved/${names[1]}`, `/memories/solo ${names[2]}`);
    expect(text((await store.read(`/memories/solo ${names[2]}`))?.data)).toBe(`content of ${names[1]}\n`);
    expect(await store.delete("/memories/odd ünï+moved")).toBe(true);
    expect(await store.list("/memories/odd ünï+moved", 1)).toBeNull();
  });
});

describe("large directories", () => {
  it("lists past 1,000 keys and deletes in batches of 1,000", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    const count = 1_050;
    await fx.seed(
      Array.from({ length: count }, (_, i) => ({
        key: `${prefix}big/f${String(i).padStart(4, "0")}`,
        body: "ab",
      })),
    );
    fx.server.requests.reset();
    const listing = await store.list("/memories/big", 2);
    expect(listing?.entries).toHaveLength(count);
    expect(listing?.size).toBe(2 * count);
    expect(fx.server.requests.counts()).toEqual({ ListObjectsV2: 2 });

    const view = await executeCommand(store, { command: "view", path: "/memories" });
    expect(view.content.split("\n")[1]).toBe(`2.1K\t/memories`);

    fx.server.requests.reset();
    expect(await store.delete("/memories/big")).toBe(true);
    expect(fx.server.requests.counts()).toEqual({ ListObjectsV2: 3, DeleteObjects: 2 });
    expect(await fx.keys(prefix)).toEqual([]);
  });
});

describe("storage failures", () => {
  const secretLooking = /S3RVER|signature=|x-amz-|credential=|authorization|https?:\/\//i;

  it("retries 5xx and throttling, then succeeds", async () => {
    const store = fx.store();
    await store.write("/memories/r.md", bytes("still here"), { ifAbsent: true });
    fx.server.failNext({ op: "GetObject", count: 1, status: 500 });
    fx.server.failNext({ op: "GetObject", count: 1, status: 503 });
    fx.server.requests.reset();
    const viewed = await executeCommand(store, { command: "view", path: "/memories/r.md" });
    expect(viewed).toEqual({
      content: "Here's the content of /memories/r.md with line numbers:\n     1\tstill here",
      isError: false,
    });
    expect(fx.server.requests.counts()).toEqual({ GetObject: 3 });
  });

  it("reports a failure without credentials, signatures or URLs", async () => {
    const store = fx.store();
    await store.write("/memories/f.md", bytes("x"), { ifAbsent: true });
    fx.server.failNext({ op: "GetObject", status: 403, code: "SignatureDoesNotMatch" });
    const viewed = await executeCommand(store, { command: "view", path: "/memories/f.md" });
    expect(viewed).toEqual({
      content:
        "Error: view failed for /memories/f.md: S3 GetObject returned HTTP 403 (SignatureDoesNotMatch)",
      isError: true,
    });
    fx.server.failNext({ op: "PutObject", status: 503, count: Number.POSITIVE_INFINITY });
    const created = await executeCommand(store, {
      command: "create",
      path: "/memories/n.md",
      file_text: "n",
    });
    expect(created).toEqual({
      content: "Error: create failed for /memories/n.md: S3 PutObject returned HTTP 503 (SlowDown)",
      isError: true,
    });
    fx.server.clearFailures();
    const error = await store.read("/memories/f.md").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeUndefined();
    fx.server.failNext({ op: "ListObjectsV2", status: 400, code: "InvalidAccessKeyId" });
    const failure = await store.stat("/memories/f.md").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StoreFailureError);
    expect((failure as StoreFailureError).reason).toBe(
      "S3 ListObjectsV2 returned HTTP 400 (InvalidAccessKeyId)",
    );
    for (const reason of [viewed.content, created.content, (failure as StoreFailureError).reason]) {
      expect(reason).not.toMatch(secretLooking);
    }
    expect(JSON.stringify(failure)).not.toMatch(secretLooking);
  });

  it("gives up on a request that does not answer in time", async () => {
    const store = new S3Store({
      clientConfig: {
        endpoint: fx.server.endpoint,
        region: fx.server.region,
        credentials: fx.server.credentials,
        forcePathStyle: true,
        maxAttempts: 1,
        requestHandler: { requestTimeout: 300, connectionTimeout: 300 },
      },
      bucket: fx.server.bucket,
      prefix: freshPrefix(),
    });
    try {
      fx.server.failNext({ op: "GetObject", hang: true });
      const viewed = await executeCommand(store, { command: "view", path: "/memories/slow.md" });
      expect(viewed).toEqual({
        content: "Error: view failed for /memories/slow.md: request timed out",
        isError: true,
      });
    } finally {
      await store.close();
    }
  });

  it("reports a refused connection", async () => {
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
      const viewed = await executeCommand(store, { command: "view", path: "/memories/x" });
      expect(viewed).toEqual({
        content: "Error: view failed for /memories/x: connection refused",
        isError: true,
      });
      expect(viewed.content).not.toMatch(/AKIA|secret-example/);
    } finally {
      await store.close();
    }
  });

  it("leaves a client it was given open", async () => {
    const store = fx.store();
    await store.close();
    await fx.store().write("/memories/after-close", bytes("ok"), { ifAbsent: true });
    expect(fx.server.requests.counts().PutObject).toBe(1);
  });
});
