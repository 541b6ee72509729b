import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { executeCommand, StoreFailureError } from "@mem/core";
import { FsStore } from "@mem/fs";
import { describe, expect, it } from "vitest";
import { bytes, tempDir, text } from "./helpers/files.js";

const LINK_REASON = "symbolic link not followed";

/**
 * Every case builds: {base}/memories (the root), {base}/outside (a directory the store must never
 * touch, holding secret.txt and sub/), and {base}/memories-evil (a sibling whose name shares the
 * root's prefix). Links are created after the store is constructed.
 */
const setup = (resolution: "auto" | "path") => {
  const base = tempDir();
  const root = join(base, "memories");
  const outside = join(base, "outside");
  const evil = join(base, "memories-evil");
  for (const dir of [outside, join(outside, "sub"), evil]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(outside, "secret.txt"), "secret");
  writeFileSync(join(outside, "sub", "deep.txt"), "deep");
  writeFileSync(join(evil, "loot.txt"), "loot");
  const store = new FsStore({ root, resolution });
  const snapshot = () => ({
    outside: readdirSync(outside, { recursive: true, encoding: "utf8" }).sort(),
    secret: readFileSync(join(outside, "secret.txt"), "utf8"),
    evil: readdirSync(evil).sort(),
  });
  const before = snapshot();
  const untouched = () => expect(snapshot()).toEqual(before);
  return { base, root, outside, evil, store, untouched };
};

const refused = async (promise: Promise<unknown>): Promise<void> => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreFailureError);
  expect((error as StoreFailureError).reason).toBe(LINK_REASON);
};

describe.each(["auto", "path"] as const)("symbolic links (resolution %s)", (resolution) => {
  it("refuses a directory link to outside the root for every operation", async () => {
    const { root, outside, store, untouched } = setup(resolution);
    await store.write("/memories/real", bytes("r"), { ifAbsent: true });
    symlinkSync(outside, join(root, "out"));
    await refused(store.read("/memories/out/secret.txt"));
    await refused(store.stat("/memories/out"));
    await refused(store.stat("/memories/out/secret.txt"));
    await refused(store.list("/memories/out", 2));
    await refused(store.write("/memories/out/new.txt", bytes("x"), { ifAbsent: true }));
    await refused(store.write("/memories/out/secret.txt", bytes("x"), { ifAbsent: true }));
    await refused(store.write("/memories/out/a/b.txt", bytes("x"), { ifAbsent: true }));
    await refused(store.delete("/memories/out/secret.txt"));
    await refused(store.rename("/memories/out/secret.txt", "/memories/stolen.txt"));
    await refused(store.rename("/memories/real", "/memories/out/real"));
    await refused(store.rename("/memories/out", "/memories/moved"));
    untouched();
    expect(text((await store.read("/memories/real"))?.data)).toBe("r");
  });

  it("refuses a relative link to a sibling of the root that shares its name prefix", async () => {
    const { root, store, untouched } = setup(resolution);
    symlinkSync("../memories-evil", join(root, "evil"));
    await refused(store.read("/memories/evil/loot.txt"));
    await refused(store.write("/memories/evil/planted.txt", bytes("x"), { ifAbsent: true }));
    await refused(store.list("/memories/evil", 1));
    untouched();
  });

  it("refuses a link in a parent component deeper in the tree", async () => {
    const { root, outside, store, untouched } = setup(resolution);
    await store.write("/memories/a/keep.txt", bytes("k"), { ifAbsent: true });
    symlinkSync(outside, join(root, "a", "b"));
    await refused(store.read("/memories/a/b/sub/deep.txt"));
    await refused(store.write("/memories/a/b/sub/new.txt", bytes("x"), { ifAbsent: true }));
    await refused(store.delete("/memories/a/b/sub"));
    await refused(store.list("/memories/a/b/sub", 1));
    untouched();
  });

  it("refuses a file link: no read of the target, no write through it", async () => {
    const { root, outside, store, untouched } = setup(resolution);
    symlinkSync(join(outside, "secret.txt"), join(root, "f.txt"));
    await refused(store.read("/memories/f.txt"));
    await refused(store.stat("/memories/f.txt"));
    await refused(store.write("/memories/f.txt", bytes("overwrite"), { ifAbsent: true }));
    await refused(store.write("/memories/f.txt", bytes("overwrite"), { ifVersion: "anything" }));
    await refused(store.rename("/memories/f.txt", "/memories/g.txt"));
    untouched();
  });

  it("leaves links out of listings, with their targets' sizes", async () => {
    const { root, outside, store } = setup(resolution);
    await store.write("/memories/d/own.txt", bytes("12"), { ifAbsent: true });
    symlinkSync(outside, join(root, "d", "dirlink"));
    symlinkSync(join(outside, "secret.txt"), join(root, "d", "filelink.txt"));
    symlinkSync(outside, join(root, "top"));
    const listing = await store.list("/memories", 5);
    expect(listing).toEqual({
      size: 2,
      entries: expect.arrayContaining([
        { path: "/memories/d", kind: "directory", size: 2, depth: 1 },
        { path: "/memories/d/own.txt", kind: "file", size: 2, depth: 2 },
      ]),
    });
    expect(listing?.entries).toHaveLength(2);
  });

  it("deletes a link itself without touching its target", async () => {
    const { root, outside, store, untouched } = setup(resolution);
    symlinkSync(outside, join(root, "dirlink"));
    symlinkSync(join(outside, "secret.txt"), join(root, "filelink"));
    expect(await store.delete("/memories/dirlink")).toBe(true);
    expect(await store.delete("/memories/filelink")).toBe(true);
    expect(readdirSync(root)).toEqual([]);
    untouched();
  });

  it("deletes a directory holding links without descending into them", async () => {
    const { root, outside, evil, store, untouched } = setup(resolution);
    await store.write("/memories/d/e/own.txt", bytes("x"), { ifAbsent: true });
    symlinkSync(outside, join(root, "d", "dirlink"));
    symlinkSync(evil, join(root, "d", "e", "evillink"));
    symlinkSync(join(outside, "secret.txt"), join(root, "d", "e", "filelink"));
    expect(await store.delete("/memories/d")).toBe(true);
    expect(readdirSync(root)).toEqual([]);
    untouched();
  });

  it("moves a directory holding links as links, never following them", async () => {
    const { root, outside, store, untouched } = setup(resolution);
    await store.write("/memories/d/own.txt", bytes("x"), { ifAbsent: true });
    symlinkSync(outside, join(root, "d", "dirlink"));
    await store.rename("/memories/d", "/memories/m/d");
    await refused(store.read("/memories/m/d/dirlink/secret.txt"));
    expect(text((await store.read("/memories/m/d/own.txt"))?.data)).toBe("x");
    untouched();
  });

  it("stops working, touching nothing, when the root itself is replaced by a link", async () => {
    const { base, root, outside, store, untouched } = setup(resolution);
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    renameSync(root, join(base, "moved-away"));
    symlinkSync(outside, root);
    await refused(store.write("/memories/planted", bytes("x"), { ifAbsent: true }));
    await refused(store.read("/memories/secret.txt"));
    await refused(store.list("/memories", 2));
    untouched();
    expect(existsSync(join(outside, "planted"))).toBe(false);
  });

  it("refuses special files without blocking on them", async () => {
    const { root, store } = setup(resolution);
    execFileSync("mkfifo", [join(root, "pipe")]);
    const error = await store.read("/memories/pipe").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreFailureError);
    expect((error as StoreFailureError).reason).toBe("not a regular file or directory");
    expect((await store.list("/memories", 1))?.entries).toEqual([]);
    expect(await store.delete("/memories/pipe")).toBe(true);
  });
});

describe("symbolic links through the tool", () => {
  it("turn into spec error results naming the reason, and the target stays untouched", async () => {
    const { root, outside, store, untouched } = setup("auto");
    symlinkSync(outside, join(root, "out"));
    const run = (input: Record<string, unknown>) => executeCommand(store, input);
    expect(await run({ command: "view", path: "/memories/out" })).toEqual({
      content: "Error: view failed for /memories/out: symbolic link not followed",
      isError: true,
    });
    expect(await run({ command: "create", path: "/memories/out/x.txt", file_text: "x" })).toEqual({
      content: "Error: create failed for /memories/out/x.txt: symbolic link not followed",
      isError: true,
    });
    expect(await run({ command: "view", path: "/memories" })).toEqual({
      content:
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
      isError: false,
    });
    expect(await run({ command: "delete", path: "/memories/out" })).toEqual({
      content: "Successfully deleted /memories/out",
      isError: false,
    });
    untouched();
  });
});

describe("the root path itself", () => {
  it("may be given through a link, which is resolved once at construction", async () => {
    const base = tempDir();
    mkdirSync(join(base, "real"));
    symlinkSync(join(base, "real"), join(base, "alias"));
    const store = new FsStore({ root: join(base, "alias") });
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(readFileSync(join(base, "real", "f"), "utf8")).toBe("x");
    expect(store.root).toBe(join(base, "real"));
  });
});
