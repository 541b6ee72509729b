/**
 * Lost answers and unknown outcomes: every write path meets a response dropped after s3rver applied the
 * request (the SDK then retries into its own earlier effect), and reports the command's true outcome.
 */
import { executeCommand, StoreFailureError } from "@mem/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mayHaveReachedServer } from "../src/attempts.js";
import { S3Store } from "../src/index.js";
import { freshPrefix, type S3Fixture, startFixture } from "./helpers.js";

let fx: S3Fixture;

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

/** A store over a fresh prefix holding `files` (path under /memories → text), created through the store. */
async function storeWith(files: Record<string, string>) {
  const prefix = freshPrefix();
  const store = fx.store(prefix);
  for (const [name, text] of Object.entries(files)) {
    const result = await executeCommand(store, {
      command: "create",
      path: `/memories/${name}`,
      file_text: text,
    });
    expect(result.isError).toBe(false);
  }
  fx.server.requests.reset();
  return { prefix, store };
}

/** The requests of `op` as [status, injected] pairs. */
const seen = (op: string) =>
  fx.server.requests.records.filter((r) => r.op === op).map((r) => [r.status, r.injected]);

describe("a response lost after the server applied the request (SDK retries on)", () => {
  it("create: reports the file created, not 'already exists'", async () => {
    const { prefix, store } = await storeWith({});
    fx.server.failNext({ op: "PutObject", conditional: true, drop: "response" });
    const result = await executeCommand(store, {
      command: "create",
      path: "/memories/notes.md",
      file_text: "hello\n",
    });
    expect(result).toEqual({ content: "File created successfully at: /memories/notes.md", isError: false });
    expect(await fx.tree(prefix)).toEqual({ "notes.md": "hello\n" });
    // The retry met the first attempt's object (412), which carried this write's id.
    expect(seen("PutObject")).toEqual([
      [0, true],
      [412, false],
    ]);
    expect(fx.server.requests.counts().HeadObject).toBe(1);
  });

  it("str_replace: applies the edit once", async () => {
    const { prefix, store } = await storeWith({ "ids.md": "a1-100\na2-102\n" });
    fx.server.failNext({ op: "PutObject", conditional: true, drop: "response" });
    const result = await executeCommand(store, {
      command: "str_replace",
      path: "/memories/ids.md",
      old_str: "102",
      new_str: "102-118",
    });
    expect(result).toEqual({
      content:
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" +
        "     1\ta1-100\n     2\ta2-102-118",
      isError: false,
    });
    expect(await fx.tree(prefix)).toEqual({ "ids.md": "a1-100\na2-102-118\n" });
    expect(seen("PutObject")).toEqual([
      [0, true],
      [412, false],
    ]);
  });

  it("insert: inserts once", async () => {
    const { prefix, store } = await storeWith({ "log.md": "start\n" });
    fx.server.failNext({ op: "PutObject", conditional: true, drop: "response" });
    const result = await executeCommand(store, {
      command: "insert",
      path: "/memories/log.md",
      insert_line: 1,
      insert_text: "entry\n",
    });
    expect(result).toEqual({ content: "The file /memories/log.md has been edited.", isError: false });
    expect(await fx.tree(prefix)).toEqual({ "log.md": "start\nentry\n" });
  });

  it("file rename: moves the file once, never 'destination already exists'", async () => {
    const { prefix, store } = await storeWith({ "a.md": "A\n", "keep.md": "K\n" });
    fx.server.failNext({ op: "CopyObject", drop: "response" });
    fx.server.failNext({ op: "DeleteObject", drop: "response" });
    const result = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/a.md",
      new_path: "/memories/sub/b.md",
    });
    expect(result).toEqual({
      content: "Successfully renamed /memories/a.md to /memories/sub/b.md",
      isError: false,
    });
    expect(await fx.tree(prefix)).toEqual({ "keep.md": "K\n", "sub/b.md": "A\n" });
    expect(seen("CopyObject")).toEqual([
      [0, true],
      [412, false],
    ]);
    expect(seen("DeleteObject")).toEqual([
      [0, true],
      [204, false],
    ]);
  });

  it("directory rename: every step's lost answer is absorbed", async () => {
    const files = { "d/one.md": "1\n", "d/two.md": "2\n", "d/sub/three.md": "3\n", "other.md": "o\n" };
    const { prefix, store } = await storeWith(files);
    fx.server.failNext({ op: "PutObject", conditional: true, drop: "response" }); // the journal
    fx.server.failNext({ op: "CopyObject", skip: 1, drop: "response" });
    fx.server.failNext({ op: "DeleteObjects", drop: "response" });
    fx.server.failNext({ op: "DeleteObject", drop: "response" }); // the journal's removal
    const result = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/d",
      new_path: "/memories/e",
    });
    expect(result).toEqual({ content: "Successfully renamed /memories/d to /memories/e", isError: false });
    expect(await fx.tree(prefix)).toEqual({
      "e/one.md": "1\n",
      "e/two.md": "2\n",
      "e/sub/three.md": "3\n",
      "other.md": "o\n",
    });
    expect(fx.server.requests.records.filter((r) => r.injected)).toHaveLength(4);
  });

  it("delete: a file and a directory are reported deleted", async () => {
    const { prefix, store } = await storeWith({ "f.md": "f", "dir/a": "a", "dir/b": "b", "rest.md": "r" });
    fx.server.failNext({ op: "DeleteObject", drop: "response" });
    expect(await executeCommand(store, { command: "delete", path: "/memories/f.md" })).toEqual({
      content: "Successfully deleted /memories/f.md",
      isError: false,
    });
    fx.server.failNext({ op: "DeleteObjects", drop: "response" });
    expect(await executeCommand(store, { command: "delete", path: "/memories/dir" })).toEqual({
      content: "Successfully deleted /memories/dir",
      isError: false,
    });
    expect(await fx.tree(prefix)).toEqual({ "rest.md": "r" });
    expect(seen("DeleteObject")).toEqual([
      [0, true],
      [204, false],
    ]);
    expect(seen("DeleteObjects")).toEqual([
      [0, true],
      [200, false],
    ]);
  });
});

describe("outcomes without SDK retries", () => {
  it("a write whose answer was lost is recognised when its object shows it", async () => {
    const prefix = freshPrefix();
    const store = await fx.ownStore({ maxAttempts: 1 }, prefix);
    try {
      fx.server.failNext({ op: "PutObject", conditional: true, drop: "response" });
      const created = await executeCommand(store, {
        command: "create",
        path: "/memories/x.md",
        file_text: "x",
      });
      expect(created).toEqual({ content: "File created successfully at: /memories/x.md", isError: false });
      fx.server.failNext({ op: "CopyObject", drop: "response" });
      const renamed = await executeCommand(store, {
        command: "rename",
        old_path: "/memories/x.md",
        new_path: "/memories/y.md",
      });
      expect(renamed).toEqual({
        content: "Successfully renamed /memories/x.md to /memories/y.md",
        isError: false,
      });
      expect(await fx.tree(prefix)).toEqual({ "y.md": "x" });
      expect(seen("PutObject")).toEqual([[0, true]]);
      expect(seen("CopyObject")).toEqual([[0, true]]);
    } finally {
      await store.close();
    }
  });

  it("a write that timed out after it left says the change may still be applied", async () => {
    const prefix = freshPrefix();
    // Long enough that no other request times out on a busy machine; the hung PutObject always does.
    const store = await fx.ownStore({ maxAttempts: 1, requestTimeout: 2_000 }, prefix);
    try {
      fx.server.failNext({ op: "PutObject", hang: true });
      const created = await executeCommand(store, {
        command: "create",
        path: "/memories/t.md",
        file_text: "t",
      });
      expect(created).toEqual({
        content:
          "Error: create failed for /memories/t.md: request timed out. The change may still be applied; view /memories/t.md to check.",
        isError: true,
      });
      expect(await fx.tree(prefix)).toEqual({});
    } finally {
      await store.close();
    }
  });

  it("a lost answer that cannot be checked says the change may still be applied", async () => {
    const { prefix } = await storeWith({ "e.md": "one\n" });
    const store = await fx.ownStore({ maxAttempts: 1 }, prefix);
    try {
      fx.server.failNext({ op: "PutObject", conditional: true, drop: "response" });
      fx.server.failNext({ op: "HeadObject", status: 500 });
      const edited = await executeCommand(store, {
        command: "str_replace",
        path: "/memories/e.md",
        old_str: "one",
        new_str: "two",
      });
      expect(edited.isError).toBe(true);
      expect(edited.content).toMatch(
        /^Error: str_replace failed for \/memories\/e\.md: connection (reset|closed)\. The change may still be applied; view \/memories\/e\.md to check\.$/,
      );
      // It was applied, once: the model is told to look rather than to repeat the edit blindly.
      expect(await fx.tree(prefix)).toEqual({ "e.md": "two\n" });
    } finally {
      await store.close();
    }
  });

  it("a file rename whose original cannot be deleted after the copy says so", async () => {
    const { prefix, store } = await storeWith({ "a.md": "A" });
    fx.server.failNext({ op: "DeleteObject", status: 503, count: Number.POSITIVE_INFINITY });
    const renamed = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/a.md",
      new_path: "/memories/b.md",
    });
    expect(renamed).toEqual({
      content:
        "Error: rename failed for /memories/a.md: S3 DeleteObject returned HTTP 503 (SlowDown). The change may still be applied; view /memories/a.md to check.",
      isError: true,
    });
    expect(await fx.tree(prefix)).toEqual({ "a.md": "A", "b.md": "A" });
  });

  it("a request answered with an error, or never sent, stays a certain failure", async () => {
    const { prefix, store } = await storeWith({ "c.md": "one\n" });
    fx.server.failNext({ op: "PutObject", status: 503, count: Number.POSITIVE_INFINITY });
    const edited = await executeCommand(store, {
      command: "str_replace",
      path: "/memories/c.md",
      old_str: "one",
      new_str: "two",
    });
    expect(edited).toEqual({
      content: "Error: str_replace failed for /memories/c.md: S3 PutObject returned HTTP 503 (SlowDown)",
      isError: true,
    });
    expect(await fx.tree(prefix)).toEqual({ "c.md": "one\n" });

    const refused = new S3Store({
      clientConfig: {
        endpoint: "http://127.0.0.1:1",
        region: "us-east-1",
        credentials: { accessKeyId: "AKIAEXAMPLEKEY", secretAccessKey: "secret-example" },
        forcePathStyle: true,
        maxAttempts: 2,
      },
      bucket: "b",
    });
    try {
      const failure = await refused
        .write("/memories/w.md", new TextEncoder().encode("w"), { ifVersion: '"etag"' })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreFailureError);
      expect(failure).toMatchObject({ reason: "connection refused", mayBeApplied: false });
    } finally {
      await refused.close();
    }
  });
});

describe("which failed attempts may have reached S3", () => {
  it("tells failures before anything was sent from those after", () => {
    const connectTimeout = Object.assign(
      new Error(
        "@smithy/node-http-handler - the request socket did not establish a connection with the server within the configured timeout of 300 ms.",
      ),
      { name: "TimeoutError" },
    );
    const requestTimeout = Object.assign(
      new Error("a request has exceeded the configured 300 ms requestTimeout."),
      {
        name: "TimeoutError",
        code: "ETIMEDOUT",
      },
    );
    const reset = Object.assign(new Error("socket hang up"), { name: "TimeoutError", code: "ECONNRESET" });
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const answered = Object.assign(new Error("SlowDown"), { $metadata: { httpStatusCode: 503 } });
    const noCredentials = Object.assign(new Error("no credentials"), { name: "CredentialsProviderError" });
    expect([connectTimeout, refused, answered, noCredentials].map(mayHaveReachedServer)).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect([requestTimeout, reset, new Error("unknown")].map(mayHaveReachedServer)).toEqual([
      true,
      true,
      true,
    ]);
  });
});

describe("the server probe under faults", () => {
  const PROBES = ".mem-s3-probe/";
  /** A store with a client of its own, so its first write measures the server again. */
  const unprobed = (prefix: string, clock?: () => number) =>
    new S3Store({
      clientConfig: {
        endpoint: fx.server.endpoint,
        region: fx.server.region,
        credentials: fx.server.credentials,
        forcePathStyle: true,
        maxAttempts: 1,
      },
      bucket: fx.server.bucket,
      prefix,
      ...(clock ? { clock } : {}),
    });
  const later = () => Date.now() + 2 * 60 * 60 * 1000;

  it("never fails a command when its clean-up cannot delete; a later start or sweep() removes the leftover", async () => {
    const prefix = freshPrefix();
    await fx.seed([{ key: `${prefix}f3.txt`, body: "three\n" }]);
    const store = unprobed(prefix);
    fx.server.failNext({ op: "DeleteObject", key: (key) => key.includes(PROBES), count: Infinity });
    const result = await executeCommand(store, {
      command: "str_replace",
      path: "/memories/f3.txt",
      old_str: "three",
      new_str: "drei",
    });
    expect(result.isError, result.content).toBe(false);
    expect(seen("DeleteObject")).toEqual([[503, true]]);
    fx.server.clearFailures();
    const [leftover] = await fx.keys(`${prefix}${PROBES}`);
    expect(leftover).toBeDefined();
    expect(await fx.tree(prefix)).toEqual({ "f3.txt": "drei\n", [leftover!.slice(prefix.length)]: "b" });
    expect(await executeCommand(store, { command: "view", path: "/memories" })).toEqual({
      content:
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n" +
        "5B\t/memories\n5B\t/memories/f3.txt",
      isError: false,
    });
    await store.close();

    // A start soon after leaves it: it could be the scratch key of a probe running elsewhere right now.
    const soon = unprobed(prefix);
    await soon.check();
    await soon.close();
    expect(await fx.keys(`${prefix}${PROBES}`)).toEqual([leftover]);
    // An hour on, a start removes what the probe left.
    const start = unprobed(prefix, later);
    await start.check();
    await start.close();
    expect(await fx.keys(`${prefix}${PROBES}`)).toEqual([]);

    // So does sweep(), with or without expiry.
    fx.server.failNext({ op: "DeleteObject", key: (key) => key.includes(PROBES), count: Infinity });
    const again = unprobed(prefix);
    expect(
      (await executeCommand(again, { command: "create", path: "/memories/g.txt", file_text: "g" })).isError,
    ).toBe(false);
    await again.close();
    fx.server.clearFailures();
    expect(await fx.keys(`${prefix}${PROBES}`)).toHaveLength(1);
    const sweeper = unprobed(prefix, later);
    expect(await sweeper.sweep()).toEqual({ paths: [], bytes: 0 });
    await sweeper.close();
    expect(await fx.tree(prefix)).toEqual({ "f3.txt": "drei\n", "g.txt": "g" });
  });
});
