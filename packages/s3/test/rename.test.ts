import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { AlreadyExistsError, executeCommand } from "@mem/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { S3Store } from "../src/index.js";
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

const FILES = [
  "a.md",
  "b.md",
  "c d.md",
  "sub/e.md",
  "sub/f+g.md",
  "sub/deep/h.md",
  "sub/deep/ï.md",
  ".hidden",
  "node_modules/x.js",
  "z/1",
  "z/2",
  "z/3",
];

const content = (name: string) => `content of ${name}\n`;

async function seedProject(store: S3Store, dir = "/memories/proj"): Promise<void> {
  for (const name of FILES) {
    const result = await executeCommand(store, {
      command: "create",
      path: `${dir}/${name}`,
      file_text: content(name),
    });
    expect(result.isError).toBe(false);
  }
}

async function expectProject(store: S3Store, dir: string): Promise<void> {
  for (const name of FILES) {
    const file = await store.read(`${dir}/${name}`);
    expect(new TextDecoder().decode(file?.data), `${dir}/${name}`).toBe(content(name));
  }
}

const rename = (store: S3Store, from: string, to: string) =>
  executeCommand(store, { command: "rename", old_path: from, new_path: to });

describe("directory rename", () => {
  it("copies before it deletes, and a failed copy loses nothing; running it again completes it", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    await seedProject(store);

    fx.server.failNext({ op: "CopyObject", skip: 5, count: Number.POSITIVE_INFINITY, status: 500 });
    const failed = await rename(store, "/memories/proj", "/memories/moved");
    expect(failed).toEqual({
      content: "Error: rename failed for /memories/proj: S3 CopyObject returned HTTP 500 (InternalError)",
      isError: true,
    });
    await expectProject(store, "/memories/proj");
    expect(await fx.keys(`${prefix}moved/`)).toHaveLength(5);
    expect(await fx.keys(`${prefix}.mem-s3-rename/`)).toHaveLength(1);
    expect(fx.server.requests.counts().DeleteObjects ?? 0).toBe(0);

    fx.server.clearFailures();
    const again = await rename(store, "/memories/proj", "/memories/moved");
    expect(again).toEqual({
      content: "Successfully renamed /memories/proj to /memories/moved",
      isError: false,
    });
    await expectProject(store, "/memories/moved");
    expect(await fx.keys(`${prefix}proj/`)).toEqual([]);
    expect(await fx.keys(`${prefix}.mem-s3-rename/`)).toEqual([]);
    expect(await store.stat("/memories/proj")).toBeNull();
    expect(await store.stat("/memories/moved")).toEqual({ kind: "directory" });
  });

  it("keeps both copies when deleting the originals fails, then completes on the next run", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    await seedProject(store);
    fx.server.failNext({ op: "DeleteObjects", count: Number.POSITIVE_INFINITY, status: 503 });
    const failed = await rename(store, "/memories/proj", "/memories/moved");
    expect(failed).toEqual({
      content: "Error: rename failed for /memories/proj: S3 DeleteObjects returned HTTP 503 (SlowDown)",
      isError: true,
    });
    await expectProject(store, "/memories/proj");
    await expectProject(store, "/memories/moved");

    fx.server.clearFailures();
    expect((await rename(store, "/memories/proj", "/memories/moved")).isError).toBe(false);
    await expectProject(store, "/memories/moved");
    expect(await fx.keys(`${prefix}proj/`)).toEqual([]);
    expect(await fx.keys(`${prefix}.mem-s3-rename/`)).toEqual([]);
  });

  it("lets another instance complete an unfinished rename", async () => {
    const prefix = freshPrefix();
    const first = fx.store(prefix);
    await seedProject(first);
    fx.server.failNext({ op: "CopyObject", skip: 3, count: Number.POSITIVE_INFINITY, status: 500 });
    expect((await rename(first, "/memories/proj", "/memories/moved")).isError).toBe(true);
    fx.server.clearFailures();

    const second = fx.store(prefix);
    expect(await rename(second, "/memories/proj", "/memories/moved")).toEqual({
      content: "Successfully renamed /memories/proj to /memories/moved",
      isError: false,
    });
    await expectProject(second, "/memories/moved");
    expect(await second.stat("/memories/proj")).toBeNull();
    expect(await second.completePendingRenames()).toBe(0);
  });

  it("lets a direct store call continue the same rename, and no other", async () => {
    const prefix = freshPrefix();
    const first = fx.store(prefix);
    await seedProject(first);
    await first.write("/memories/other/x", new TextEncoder().encode("x"), { ifAbsent: true });
    fx.server.failNext({ op: "CopyObject", skip: 2, count: Number.POSITIVE_INFINITY, status: 500 });
    await expect(first.rename("/memories/proj", "/memories/moved")).rejects.toThrow(/CopyObject/);
    fx.server.clearFailures();

    expect(await rename(first, "/memories/other", "/memories/moved")).toEqual({
      content: "Error: The destination /memories/moved already exists",
      isError: true,
    });
    const second = fx.store(prefix);
    await expect(second.rename("/memories/other", "/memories/moved")).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    await second.rename("/memories/proj", "/memories/moved");
    await expectProject(second, "/memories/moved");
    expect(new TextDecoder().decode((await second.read("/memories/other/x"))?.data)).toBe("x");
    expect(await second.stat("/memories/proj")).toBeNull();
  });

  it("replaces the journal of a rename whose source is gone", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    await seedProject(store);
    await store.write("/memories/next/y", new TextEncoder().encode("y"), { ifAbsent: true });
    fx.server.failNext({ op: "CopyObject", count: Number.POSITIVE_INFINITY, status: 500 });
    expect((await rename(store, "/memories/proj", "/memories/moved")).isError).toBe(true);
    fx.server.clearFailures();
    expect(await fx.keys(`${prefix}moved/`)).toEqual([]);
    expect((await executeCommand(store, { command: "delete", path: "/memories/proj" })).isError).toBe(false);

    expect(await rename(store, "/memories/next", "/memories/moved")).toEqual({
      content: "Successfully renamed /memories/next to /memories/moved",
      isError: false,
    });
    expect(new TextDecoder().decode((await store.read("/memories/moved/y"))?.data)).toBe("y");
    expect(await fx.keys(`${prefix}.mem-s3-rename/`)).toEqual([]);
  });

  it("never overwrites a file that appears in the destination meanwhile", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    await seedProject(store);
    fx.server.failNext({ op: "CopyObject", count: Number.POSITIVE_INFINITY, status: 500 });
    expect((await rename(store, "/memories/proj", "/memories/moved")).isError).toBe(true);
    fx.server.clearFailures();
    await store.write("/memories/moved/a.md", new TextEncoder().encode("written meanwhile"), {
      ifAbsent: true,
    });
    expect((await rename(store, "/memories/proj", "/memories/moved")).isError).toBe(false);
    expect(new TextDecoder().decode((await store.read("/memories/moved/a.md"))?.data)).toBe(
      "written meanwhile",
    );
    expect(new TextDecoder().decode((await store.read("/memories/moved/b.md"))?.data)).toBe(content("b.md"));
  });
});

describe("directory rename resumed under faults", () => {
  it("re-sends only the copies still missing", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    await seedProject(store);
    fx.server.failNext({ op: "CopyObject", skip: 5, count: Number.POSITIVE_INFINITY, status: 500 });
    expect((await rename(store, "/memories/proj", "/memories/moved")).isError).toBe(true);
    expect(await fx.keys(`${prefix}moved/`)).toHaveLength(5);
    fx.server.clearFailures();
    fx.server.requests.reset();

    expect((await rename(store, "/memories/proj", "/memories/moved")).isError).toBe(false);
    // Two probes, the journal, both directories listed, the 7 missing copies, the deletes.
    expect(fx.server.requests.counts()).toEqual({
      ListObjectsV2: 4,
      GetObject: 1,
      CopyObject: FILES.length - 5,
      DeleteObjects: 1,
      DeleteObject: 1,
    });
    await expectProject(store, "/memories/moved");
    expect(await fx.keys(`${prefix}proj/`)).toEqual([]);
  });

  it(
    "finishes within a bounded number of runs at 15% faults without SDK retries",
    { timeout: 120_000 },
    async () => {
      const prefix = freshPrefix();
      const count = 50;
      const names = Array.from({ length: count }, (_, i) => `f${String(i).padStart(2, "0")}.md`);
      await fx.seed(names.map((name) => ({ key: `${prefix}src/${name}`, body: `body of ${name}\n` })));
      const store = await fx.ownStore({ maxAttempts: 1 }, prefix);
      const keysUnder = async (dir: string) =>
        (
          await fx.direct.send(
            new ListObjectsV2Command({ Bucket: fx.server.bucket, Prefix: `${prefix}${dir}/` }),
          )
        ).KeyCount ?? 0;
      try {
        // 5% answered 503, 5% dropped before s3rver sees them, 5% dropped after s3rver applied them.
        const all = { count: Number.POSITIVE_INFINITY, rate: 0.05 };
        fx.server.failNext({ ...all, seed: 11, status: 503 });
        fx.server.failNext({ ...all, seed: 12, drop: "request" });
        fx.server.failNext({ ...all, seed: 13, drop: "response" });
        let runs = 0;
        let done = false;
        while (!done && runs < 30) {
          const before = count - (await keysUnder("dst"));
          fx.server.requests.reset();
          runs++;
          const result = await rename(store, "/memories/src", "/memories/dst");
          // Copies already made are never sent again: at most one request per missing copy.
          expect(fx.server.requests.counts().CopyObject ?? 0).toBeLessThanOrEqual(before);
          // A run whose last answer was lost reports an error although the move is complete.
          done = !result.isError || (await keysUnder("src")) === 0;
        }
        fx.server.clearFailures();
        expect(done).toBe(true);
        // 12 runs with these seeds; the margin absorbs the arrival order of parallel requests.
        expect(runs).toBeLessThanOrEqual(15);
        await store.completePendingRenames();
        expect(await fx.tree(prefix)).toEqual(
          Object.fromEntries(names.map((name) => [`dst/${name}`, `body of ${name}\n`])),
        );
      } finally {
        await store.close();
      }
    },
  );
});

describe("file rename", () => {
  it("leaves the original when the copy fails, and refuses an existing destination", async () => {
    const store = fx.store();
    await store.write("/memories/one.md", new TextEncoder().encode("1"), { ifAbsent: true });
    await store.write("/memories/two.md", new TextEncoder().encode("2"), { ifAbsent: true });
    fx.server.failNext({ op: "CopyObject", count: Number.POSITIVE_INFINITY, status: 500 });
    expect((await rename(store, "/memories/one.md", "/memories/three.md")).isError).toBe(true);
    fx.server.clearFailures();
    expect(new TextDecoder().decode((await store.read("/memories/one.md"))?.data)).toBe("1");
    expect(await store.stat("/memories/three.md")).toBeNull();
    await expect(store.rename("/memories/one.md", "/memories/two.md")).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    await store.rename("/memories/one.md", "/memories/d/three.md");
    expect(new TextDecoder().decode((await store.read("/memories/d/three.md"))?.data)).toBe("1");
    expect(await store.stat("/memories/one.md")).toBeNull();
  });
});
