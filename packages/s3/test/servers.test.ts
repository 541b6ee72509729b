/**
 * What S3Store does on servers that enforce fewer conditions than AWS S3: it measures them before its
 * first write, refuses every write where concurrent writers could overwrite each other (raw s3rver,
 * without the testkit's proxy), and with `singleWriter` checks the conditions itself. Raw s3rver also
 * fails listings with `max-keys` and answers writes before they read back, so `singleWriter` is shown on
 * the testkit's proxy with its conditions turned off: a server that ignores them and is otherwise sound.
 */
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { executeCommand, StoreFailureError } from "@mem/core";
import { type S3TestServer, startS3 } from "@mem/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { probeConditions } from "../src/conditions.js";
import { S3Store } from "../src/index.js";
import { freshPrefix, type S3Fixture, startFixture } from "./helpers.js";

let fx: S3Fixture;
/** Straight to s3rver: no conditions enforced. */
let raw: S3Client;
/** Through a proxy that passes conditions to s3rver unenforced. */
let laxServer: S3TestServer;
let lax: S3Client;

const clientOf = (endpoint: string) =>
  new S3Client({ endpoint, region: "us-east-1", credentials: fx.server.credentials, forcePathStyle: true });

beforeAll(async () => {
  [fx, laxServer] = await Promise.all([startFixture(), startS3({ enforceConditions: false })]);
  raw = clientOf(fx.server.directEndpoint);
  lax = clientOf(laxServer.endpoint);
});

afterAll(async () => {
  raw?.destroy();
  lax?.destroy();
  await Promise.all([fx?.stop(), laxServer?.stop()]);
});

beforeEach(() => {
  fx.server.clearFailures();
  fx.server.requests.reset();
});

const MISSING =
  "the S3 server does not enforce If-None-Match: * or If-Match on PutObject, so concurrent writes could " +
  "overwrite each other; writes are refused unless the store is configured with singleWriter";

const rawStore = (prefix: string) => new S3Store({ client: raw, bucket: fx.server.bucket, prefix });
const laxStore = (prefix: string, singleWriter?: boolean) =>
  new S3Store({ client: lax, bucket: laxServer.bucket, prefix, ...(singleWriter ? { singleWriter } : {}) });

const keysUnder = async (prefix: string) =>
  ((await raw.send(new ListObjectsV2Command({ Bucket: fx.server.bucket, Prefix: prefix }))).Contents ?? [])
    .map((o) => o.Key!)
    .sort();

/** Every object under `prefix` on the lax server, with its body. */
const laxTree = async (prefix: string) => {
  const listed = await lax.send(new ListObjectsV2Command({ Bucket: laxServer.bucket, Prefix: prefix }));
  const out: Record<string, string> = {};
  for (const { Key } of listed.Contents ?? []) {
    const object = await lax.send(new GetObjectCommand({ Bucket: laxServer.bucket, Key }));
    out[Key!.slice(prefix.length)] = (await object.Body?.transformToString()) ?? "";
  }
  return out;
};

describe("measuring the server's conditional writes", () => {
  it("finds every condition enforced behind the testkit proxy, in 7 requests, and leaves no key", async () => {
    const prefix = freshPrefix();
    const conditions = await probeConditions(fx.client, fx.server.bucket, `${prefix}.mem-s3-probe/x`);
    expect(conditions).toEqual({ ifNoneMatch: true, ifMatch: "quoted", copyIfNoneMatch: true });
    expect(fx.server.requests.counts()).toEqual({ PutObject: 5, CopyObject: 1, DeleteObject: 1 });
    expect(fx.server.requests.records.map((r) => r.status)).toEqual([200, 412, 200, 412, 412, 412, 204]);
    expect(await fx.keys(prefix)).toEqual([]);
  });

  it("finds none enforced on raw s3rver or the lax proxy, and leaves no key", async () => {
    const prefix = freshPrefix();
    const none = { ifNoneMatch: false, ifMatch: null, copyIfNoneMatch: false };
    expect(await probeConditions(raw, fx.server.bucket, `${prefix}.mem-s3-probe/x`)).toEqual(none);
    expect(await keysUnder(prefix)).toEqual([]);
    expect(await probeConditions(lax, laxServer.bucket, `${prefix}.mem-s3-probe/y`)).toEqual(none);
    expect(await laxTree(prefix)).toEqual({});
  });

  it("probes once per client and bucket: the first write of a new client pays for it", async () => {
    const client = new S3Client({
      endpoint: fx.server.endpoint,
      region: fx.server.region,
      credentials: fx.server.credentials,
      forcePathStyle: true,
    });
    try {
      const first = new S3Store({ client, bucket: fx.server.bucket, prefix: freshPrefix() });
      const view = await executeCommand(first, { command: "view", path: "/memories" });
      expect(view.isError).toBe(false);
      expect(fx.server.requests.counts(), "reads need no probe").toEqual({ ListObjectsV2: 1 });
      fx.server.requests.reset();
      const input = { command: "create", path: "/memories/a.md", file_text: "a" };
      expect((await executeCommand(first, input)).isError).toBe(false);
      expect(fx.server.requests.counts()).toEqual({
        PutObject: 5 + 1,
        CopyObject: 1,
        DeleteObject: 1,
        ListObjectsV2: 1,
      });
      fx.server.requests.reset();
      const second = new S3Store({ client, bucket: fx.server.bucket, prefix: freshPrefix() });
      expect((await executeCommand(second, input)).isError).toBe(false);
      expect(fx.server.requests.counts()).toEqual({ PutObject: 1, ListObjectsV2: 1 });
    } finally {
      client.destroy();
    }
  });

  it("keeps the scratch name out of reach of paths and listings", async () => {
    const store = fx.store();
    expect(store.isReservedName(".mem-s3-probe")).toBe(true);
    const result = await executeCommand(store, { command: "view", path: "/memories/.mem-s3-probe/x" });
    expect(result).toEqual({
      content: "Error: The path /memories/.mem-s3-probe/x is not allowed: it uses a reserved name",
      isError: true,
    });
  });

  it("takes a condition the server rejects (501) as not enforced, and singleWriter then writes without it", async () => {
    const client = new S3Client({
      endpoint: fx.server.endpoint,
      region: fx.server.region,
      credentials: fx.server.credentials,
      forcePathStyle: true,
    });
    fx.server.failNext({ op: "PutObject", conditional: true, status: 501, count: Number.POSITIVE_INFINITY });
    try {
      const prefix = freshPrefix();
      expect(await probeConditions(client, fx.server.bucket, `${prefix}.mem-s3-probe/x`)).toEqual({
        ifNoneMatch: false,
        ifMatch: null,
        copyIfNoneMatch: true,
      });
      const store = new S3Store({ client, bucket: fx.server.bucket, prefix, singleWriter: true });
      const input = { command: "create", path: "/memories/a.md", file_text: "a" };
      expect(await executeCommand(store, input)).toMatchObject({ isError: false });
      expect(await executeCommand(store, input)).toEqual({
        content: "Error: File /memories/a.md already exists",
        isError: true,
      });
      expect(await fx.tree(prefix)).toEqual({ "a.md": "a" });
    } finally {
      client.destroy();
    }
  });

  it("measures again on check(), and a failed measurement is a store failure", async () => {
    await fx.store().check();
    expect(fx.server.requests.counts().PutObject).toBe(5);
    fx.server.requests.reset();
    fx.server.failNext({ op: "PutObject", status: 403, code: "AccessDenied" });
    const failure = await fx
      .store()
      .check()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreFailureError);
    expect(failure).toMatchObject({ reason: "S3 PutObject returned HTTP 403 (AccessDenied)" });
    // The failed measurement is not kept: the next write measures again and succeeds.
    fx.server.requests.reset();
    const store = fx.store();
    const created = await executeCommand(store, {
      command: "create",
      path: "/memories/b.md",
      file_text: "b",
    });
    expect(created.isError).toBe(false);
    expect(fx.server.requests.counts().PutObject).toBe(6);
  });
});

describe("a server that ignores conditional writes", () => {
  it.each([
    ["raw s3rver", "raw"],
    ["the lax proxy", "lax"],
  ])("refuses every write on %s with the missing conditions named, and changes nothing", async (_, which) => {
    const prefix = freshPrefix();
    const tree = which === "raw" ? fx.tree : laxTree;
    await (which === "raw" ? raw : lax).send(
      new PutObjectCommand({ Bucket: fx.server.bucket, Key: `${prefix}notes.md`, Body: "one\n" }),
    );
    const store = which === "raw" ? rawStore(prefix) : laxStore(prefix);
    expect(store.capabilities.crossProcessSafe).toBe(true);
    const inputs: Record<string, string | number>[] = [
      { command: "create", path: "/memories/new.md", file_text: "x" },
      { command: "create", path: "/memories/notes.md", file_text: "overwritten\n" },
      { command: "str_replace", path: "/memories/notes.md", old_str: "one", new_str: "two" },
      { command: "insert", path: "/memories/notes.md", insert_line: 0, insert_text: "zero" },
      { command: "rename", old_path: "/memories/notes.md", new_path: "/memories/moved.md" },
      { command: "delete", path: "/memories/notes.md" },
    ];
    for (const input of inputs) {
      const path = String(input.path ?? input.old_path);
      expect(await executeCommand(store, input), String(input.command)).toEqual({
        content: `Error: ${input.command} failed for ${path}: ${MISSING}`,
        isError: true,
      });
    }
    expect(await tree(prefix)).toEqual({ "notes.md": "one\n" });
    expect(await executeCommand(store, { command: "view", path: "/memories/notes.md" })).toEqual({
      content: "Here's the content of /memories/notes.md with line numbers:\n     1\tone",
      isError: false,
    });
    await expect(store.check()).rejects.toMatchObject({ reason: MISSING, mayBeApplied: false });
    await expect(store.completePendingRenames()).rejects.toMatchObject({ reason: MISSING });
  });

  describe("with singleWriter: true", () => {
    it("says it is not safe across processes", () => {
      expect(laxStore(freshPrefix(), true).capabilities).toEqual({
        crossProcessSafe: false,
        atomicDirectoryRename: false,
      });
      expect(
        () => new S3Store({ client: lax, bucket: "b", singleWriter: "yes" as unknown as boolean }),
      ).toThrow(new TypeError("S3Store: `singleWriter` must be true or false"));
    });

    it("never overwrites: creates and renames onto an existing file are refused", async () => {
      const prefix = freshPrefix();
      const store = laxStore(prefix, true);
      const run = (input: Record<string, unknown>) => executeCommand(store, input);
      expect(await run({ command: "create", path: "/memories/a.md", file_text: "A" })).toMatchObject({
        isError: false,
      });
      expect(await run({ command: "create", path: "/memories/a.md", file_text: "B" })).toEqual({
        content: "Error: File /memories/a.md already exists",
        isError: true,
      });
      await run({ command: "create", path: "/memories/b.md", file_text: "B" });
      expect(
        await run({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" }),
      ).toEqual({
        content: "Error: The destination /memories/b.md already exists",
        isError: true,
      });
      expect(
        await run({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/d/c.md" }),
      ).toEqual({
        content: "Successfully renamed /memories/a.md to /memories/d/c.md",
        isError: false,
      });
      expect(
        await run({ command: "rename", old_path: "/memories/d", new_path: "/memories/e" }),
      ).toMatchObject({
        isError: false,
      });
      expect(await laxTree(prefix)).toEqual({ "b.md": "B", "e/c.md": "A" });
    });

    it("loses no update among concurrent edits of one store, and lets one of many creates win", async () => {
      const prefix = freshPrefix();
      const store = laxStore(prefix, true);
      const path = "/memories/log.md";
      await executeCommand(store, { command: "create", path, file_text: "" });
      const edits = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          executeCommand(store, { command: "insert", path, insert_line: 0, insert_text: `edit-${i}` }),
        ),
      );
      expect(edits.filter((r) => r.isError)).toEqual([]);
      const lines = (await laxTree(prefix))["log.md"]!.split("\n").filter((l) => l !== "");
      expect(lines.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `edit-${i}`).sort());

      const creates = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          executeCommand(store, { command: "create", path: "/memories/one.md", file_text: `w${i}` }),
        ),
      );
      expect(creates.filter((r) => !r.isError)).toHaveLength(1);
      const winner = creates.findIndex((r) => !r.isError);
      expect((await laxTree(prefix))["one.md"]).toBe(`w${winner}`);
    });
  });
});

describe("a 500 to a conditional write (Ceph RGW's answer to the losers of a race)", () => {
  it("counts as a conflict: the edit is read again and applied once", async () => {
    const prefix = freshPrefix();
    const store = await fx.ownStore({ maxAttempts: 1 }, prefix);
    try {
      await executeCommand(store, { command: "create", path: "/memories/n.md", file_text: "one\n" });
      fx.server.requests.reset();
      fx.server.failNext({ op: "PutObject", conditional: true, status: 500 });
      const edited = await executeCommand(store, {
        command: "insert",
        path: "/memories/n.md",
        insert_line: 1,
        insert_text: "two",
      });
      expect(edited).toEqual({ content: "The file /memories/n.md has been edited.", isError: false });
      expect(await fx.tree(prefix)).toEqual({ "n.md": "one\ntwo\n" });
      // The 500, a HeadObject that finds another object than this write's, then a fresh read and write.
      expect(fx.server.requests.counts()).toEqual({ GetObject: 2, PutObject: 2, HeadObject: 1 });
    } finally {
      await store.close();
    }
  });

  it("a create answered 500 is tried again, never reported as existing when it is not", async () => {
    const prefix = freshPrefix();
    const store = await fx.ownStore({ maxAttempts: 1 }, prefix);
    try {
      fx.server.failNext({ op: "PutObject", conditional: true, status: 500 });
      const created = await executeCommand(store, {
        command: "create",
        path: "/memories/c.md",
        file_text: "c",
      });
      expect(created).toEqual({ content: "File created successfully at: /memories/c.md", isError: false });
      expect(await fx.tree(prefix)).toEqual({ "c.md": "c" });
    } finally {
      await store.close();
    }
  });
});
