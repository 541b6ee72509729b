import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StoreFailureError } from "@mem/core";
import { FsStore, type FsStoreOptions } from "@mem/fs";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/files.js";

const make = (options: unknown) => () => new FsStore(options as FsStoreOptions);

describe("FsStore options", () => {
  it("rejects bad options with a TypeError naming the option and what is allowed", () => {
    expect(make(undefined)).toThrow(new TypeError("FsStore: options must be an object, not undefined"));
    expect(make({})).toThrow(new TypeError('FsStore: option "root" must be given'));
    expect(make({ root: "" })).toThrow(new TypeError('FsStore: option "root" must be a non-empty string'));
    const root = tempDir();
    expect(make({ root, lockTimeoutMs: -1 })).toThrow(
      new TypeError('FsStore: option "lockTimeoutMs" must be an integer >= 0'),
    );
    expect(make({ root, lockStaleMs: "30s" })).toThrow(
      new TypeError('FsStore: option "lockStaleMs" must be an integer >= 1'),
    );
    expect(make({ root, resolution: "fd" })).toThrow(
      new TypeError('FsStore: option "resolution" must be one of "auto", "path"'),
    );
  });

  it("refuses a root that is a file, or lies beneath one, with a TypeError", () => {
    const file = join(tempDir(), "file");
    writeFileSync(file, "x");
    const message = 'FsStore: option "root" must name a directory (or where one can be created), not a file';
    expect(make({ root: file })).toThrow(new TypeError(message));
    expect(make({ root: join(file, "below") })).toThrow(new TypeError(message));
  });
});

describe("FsStore.check", () => {
  it("passes on a usable root and fails fast once the root is gone", async () => {
    const root = join(tempDir(), "memories");
    const store = new FsStore({ root });
    await expect(store.check()).resolves.toBeUndefined();
    rmSync(root, { recursive: true });
    const failure = await store.check().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoreFailureError);
    expect((failure as StoreFailureError).reason).toBe("the memory directory no longer exists");
  });

  it("fails fast when the root was replaced by a file", async () => {
    const root = join(tempDir(), "memories");
    const store = new FsStore({ root });
    rmSync(root, { recursive: true });
    writeFileSync(root, "x");
    await expect(store.check()).rejects.toThrow(StoreFailureError);
  });
});
