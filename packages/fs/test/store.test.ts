import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  AlreadyExistsError,
  ConflictError,
  executeCommand,
  NotADirectoryError,
  NotFoundError,
  StoreFailureError,
} from "@mem/core";
import { FsStore } from "@mem/fs";
import { turnsDuring } from "@mem/testkit";
import { describe, expect, it } from "vitest";
import { bytes, tempDir, text } from "./helpers/files.js";

const fresh = () => {
  const root = join(tempDir(), "memories");
  return { root, store: new FsStore({ root }) };
};

const allNames = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).map((name) => name.split("/").at(-1)!);

describe("FsStore basics", () => {
  it("creates the root with mode 0700, parents included, whatever the umask", () => {
    const base = tempDir();
    const previous = process.umask(0o022);
    try {
      new FsStore({ root: join(base, "x", "y") });
    } finally {
      process.umask(previous);
    }
    expect(statSync(join(base, "x")).mode & 0o777).toBe(0o700);
    expect(statSync(join(base, "x", "y")).mode & 0o777).toBe(0o700);
  });

  it("maps /memories/a/b to {root}/a/b and reads back the exact bytes", async () => {
    const { root, store } = fresh();
    const data = new Uint8Array([0xff, 0x00, 0x0a, 0xc3, 0xa9]);
    await store.write("/memories/a/b.bin", data, { ifAbsent: true });
    expect(readdirSync(join(root, "a"))).toEqual(["b.bin"]);
    const read = await store.read("/memories/a/b.bin");
    expect([...(read?.data ?? [])]).toEqual([...data]);
  });

  it("returns null for missing files, directories and paths below a file", async () => {
    const { store } = fresh();
    await store.write("/memories/d/f.txt", bytes("x"), { ifAbsent: true });
    expect(await store.read("/memories/nope")).toBeNull();
    expect(await store.read("/memories/d")).toBeNull();
    expect(await store.read("/memories/d/f.txt/deeper")).toBeNull();
    expect(await store.read("/memories")).toBeNull();
  });

  it("stats files, directories, the root and missing paths", async () => {
    const { store } = fresh();
    await store.write("/memories/d/f.txt", bytes("héllo"), { ifAbsent: true });
    expect(await store.stat("/memories")).toEqual({ kind: "directory" });
    expect(await store.stat("/memories/d")).toEqual({ kind: "directory" });
    expect(await store.stat("/memories/d/f.txt")).toEqual({ kind: "file", size: 6 });
    expect(await store.stat("/memories/d/g")).toBeNull();
    expect(await store.stat("/memories/d/f.txt/x")).toBeNull();
  });

  it("changes the version whenever the content changes, even for same-size writes", async () => {
    const { store } = fresh();
    const first = await store.write("/memories/f", bytes("aaaa"), { ifAbsent: true });
    const second = await store.write("/memories/f", bytes("bbbb"), { ifVersion: first.version });
    const third = await store.write("/memories/f", bytes("cccc"), { ifVersion: second.version });
    expect(new Set([first.version, second.version, third.version]).size).toBe(3);
    expect((await store.read("/memories/f"))?.version).toBe(third.version);
  });

  it("enforces ifAbsent against files and directories", async () => {
    const { store } = fresh();
    await store.write("/memories/d/f", bytes("1"), { ifAbsent: true });
    await expect(store.write("/memories/d/f", bytes("2"), { ifAbsent: true })).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    await expect(store.write("/memories/d", bytes("2"), { ifAbsent: true })).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    expect(text((await store.read("/memories/d/f"))?.data)).toBe("1");
  });

  it("enforces ifVersion: stale versions, missing files and directories conflict", async () => {
    const { store } = fresh();
    const v1 = await store.write("/memories/f", bytes("1"), { ifAbsent: true });
    await store.write("/memories/f", bytes("2"), { ifVersion: v1.version });
    await expect(store.write("/memories/f", bytes("3"), { ifVersion: v1.version })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(store.write("/memories/g", bytes("3"), { ifVersion: v1.version })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await store.write("/memories/d/x", bytes("x"), { ifAbsent: true });
    await expect(store.write("/memories/d", bytes("3"), { ifVersion: v1.version })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(text((await store.read("/memories/f"))?.data)).toBe("2");
  });

  it("refuses to write beneath a file, naming the file", async () => {
    const { store } = fresh();
    await store.write("/memories/a/f", bytes("x"), { ifAbsent: true });
    const error = await store
      .write("/memories/a/f/b/c", bytes("y"), { ifAbsent: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotADirectoryError);
    expect((error as NotADirectoryError).ancestor).toBe("/memories/a/f");
    expect(await store.stat("/memories/a/f")).toEqual({ kind: "file", size: 1 });
  });

  it("writes files 0600 and directories 0700 even with umask 0", async () => {
    const previous = process.umask(0);
    try {
      const { root, store } = fresh();
      await store.write("/memories/a/b/f", bytes("x"), { ifAbsent: true });
      const v = await store.read("/memories/a/b/f");
      await store.write("/memories/a/b/f", bytes("y"), { ifVersion: v!.version });
      expect(statSync(root).mode & 0o777).toBe(0o700);
      expect(statSync(join(root, "a")).mode & 0o777).toBe(0o700);
      expect(statSync(join(root, "a", "b")).mode & 0o777).toBe(0o700);
      expect(statSync(join(root, "a", "b", "f")).mode & 0o777).toBe(0o600);
      await store.rename("/memories/a/b/f", "/memories/n/m/f");
      expect(statSync(join(root, "n")).mode & 0o777).toBe(0o700);
      expect(statSync(join(root, "n", "m")).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(previous);
    }
  });

  it("keeps no temporary or lock files around after commands", async () => {
    const { root, store } = fresh();
    const v = await store.write("/memories/a/f", bytes("1"), { ifAbsent: true });
    await store.write("/memories/a/f", bytes("2"), { ifVersion: v.version });
    await store.rename("/memories/a/f", "/memories/b/f");
    await store.write("/memories/c", bytes("3"), { ifAbsent: true });
    await store.delete("/memories/c");
    expect(allNames(root).sort()).toEqual(["b", "f"]);
  });

  it("reserves its bookkeeping names and nothing else", () => {
    const { store } = fresh();
    expect(store.isReservedName(".~mem-tmp-0123")).toBe(true);
    expect(store.isReservedName(".~mem-lock")).toBe(true);
    expect(store.isReservedName(".~mem-lock-break")).toBe(true);
    expect(store.isReservedName(".hidden")).toBe(false);
    expect(store.isReservedName("notes.md")).toBe(false);
    expect(store.isReservedName("~mem-lock")).toBe(false);
  });

  it("declares cross-process safety, atomic directory renames and a local stat", () => {
    expect(fresh().store.capabilities).toEqual({
      crossProcessSafe: true,
      atomicDirectoryRename: true,
      localStat: true,
    });
  });
});

describe("FsStore delete", () => {
  it("deletes files and prunes the directories they leave empty, never the root", async () => {
    const { root, store } = fresh();
    await store.write("/memories/a/b/c/f", bytes("x"), { ifAbsent: true });
    await store.write("/memories/a/g", bytes("y"), { ifAbsent: true });
    expect(await store.delete("/memories/a/b/c/f")).toBe(true);
    expect(await store.stat("/memories/a/b")).toBeNull();
    expect(await store.stat("/memories/a")).toEqual({ kind: "directory" });
    expect(await store.delete("/memories/a/g")).toBe(true);
    expect(readdirSync(root)).toEqual([]);
    expect(await store.stat("/memories")).toEqual({ kind: "directory" });
  });

  it("deletes directories recursively, hidden content included", async () => {
    const { root, store } = fresh();
    await store.write("/memories/d/.hidden/x", bytes("1"), { ifAbsent: true });
    await store.write("/memories/d/node_modules/y", bytes("2"), { ifAbsent: true });
    await store.write("/memories/d/e/f/g", bytes("3"), { ifAbsent: true });
    await store.write("/memories/keep", bytes("4"), { ifAbsent: true });
    expect(await store.delete("/memories/d")).toBe(true);
    expect(readdirSync(root)).toEqual(["keep"]);
  });

  it("returns false for missing paths and paths beneath a file", async () => {
    const { store } = fresh();
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(await store.delete("/memories/nope")).toBe(false);
    expect(await store.delete("/memories/f/g")).toBe(false);
  });

  it("refuses to delete the root", async () => {
    const { store } = fresh();
    await expect(store.delete("/memories")).rejects.toBeInstanceOf(StoreFailureError);
  });
});

describe("FsStore rename", () => {
  it("moves files, creating parents and pruning emptied sources", async () => {
    const { root, store } = fresh();
    const v = await store.write("/memories/a/b/f", bytes("data"), { ifAbsent: true });
    await store.rename("/memories/a/b/f", "/memories/x/y/g");
    expect(await store.stat("/memories/a")).toBeNull();
    const moved = await store.read("/memories/x/y/g");
    expect(text(moved?.data)).toBe("data");
    expect(moved?.version).toBe(v.version);
    expect(readdirSync(root)).toEqual(["x"]);
  });

  it("moves whole directories", async () => {
    const { store } = fresh();
    await store.write("/memories/d/1", bytes("1"), { ifAbsent: true });
    await store.write("/memories/d/e/2", bytes("22"), { ifAbsent: true });
    await store.rename("/memories/d", "/memories/n/d2");
    expect(await store.stat("/memories/d")).toBeNull();
    expect(text((await store.read("/memories/n/d2/e/2"))?.data)).toBe("22");
  });

  it("never overwrites a file or directory", async () => {
    const { store } = fresh();
    await store.write("/memories/a", bytes("a"), { ifAbsent: true });
    await store.write("/memories/b", bytes("b"), { ifAbsent: true });
    await store.write("/memories/d/x", bytes("x"), { ifAbsent: true });
    await store.write("/memories/e/y", bytes("y"), { ifAbsent: true });
    await expect(store.rename("/memories/a", "/memories/b")).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(store.rename("/memories/a", "/memories/d")).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(store.rename("/memories/d", "/memories/e")).rejects.toBeInstanceOf(AlreadyExistsError);
    expect(text((await store.read("/memories/b"))?.data)).toBe("b");
    expect(text((await store.read("/memories/e/y"))?.data)).toBe("y");
    expect(text((await store.read("/memories/d/x"))?.data)).toBe("x");
  });

  it("fails with NotFoundError for a missing source and NotADirectoryError beneath a file", async () => {
    const { root, store } = fresh();
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    await store.write("/memories/g", bytes("y"), { ifAbsent: true });
    await expect(store.rename("/memories/nope", "/memories/z")).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.rename("/memories/f/nope", "/memories/z")).rejects.toBeInstanceOf(NotFoundError);
    const error = await store.rename("/memories/g", "/memories/f/a/b").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotADirectoryError);
    expect((error as NotADirectoryError).ancestor).toBe("/memories/f");
    expect(readdirSync(root).sort()).toEqual(["f", "g"]);
  });

  it("refuses to move a directory into itself and leaves it intact", async () => {
    const { store } = fresh();
    await store.write("/memories/d/x", bytes("x"), { ifAbsent: true });
    await expect(store.rename("/memories/d", "/memories/d/sub")).rejects.toBeInstanceOf(StoreFailureError);
    expect(await store.stat("/memories/d/sub")).toBeNull();
    expect(text((await store.read("/memories/d/x"))?.data)).toBe("x");
  });
});

describe("FsStore list", () => {
  it("lists to the requested depth with sizes totalled beneath, hidden and node_modules left out", async () => {
    const { store } = fresh();
    await store.write("/memories/a.txt", bytes("12345"), { ifAbsent: true });
    await store.write("/memories/d/b.txt", bytes("123"), { ifAbsent: true });
    await store.write("/memories/d/e/c.txt", bytes("1234567"), { ifAbsent: true });
    await store.write("/memories/d/.secret", bytes("xxxxxxxxxx"), { ifAbsent: true });
    await store.write("/memories/d/node_modules/m.js", bytes("yyyy"), { ifAbsent: true });
    await store.write("/memories/.hidden/z", bytes("zz"), { ifAbsent: true });
    const listing = await store.list("/memories", 2);
    expect(listing?.size).toBe(15);
    const entries = [...(listing?.entries ?? [])].sort((x, y) => (x.path < y.path ? -1 : 1));
    expect(entries).toEqual([
      { path: "/memories/a.txt", kind: "file", size: 5, depth: 1 },
      { path: "/memories/d", kind: "directory", size: 10, depth: 1 },
      { path: "/memories/d/b.txt", kind: "file", size: 3, depth: 2 },
      { path: "/memories/d/e", kind: "directory", size: 7, depth: 2 },
    ]);
    const sub = await store.list("/memories/d", 1);
    expect(sub?.size).toBe(10);
    expect(sub?.entries.map((e) => e.path).sort()).toEqual(["/memories/d/b.txt", "/memories/d/e"]);
  });

  it("returns null for files and missing directories, and an empty listing for an empty root", async () => {
    const { store } = fresh();
    expect(await store.list("/memories", 2)).toEqual({ size: 0, entries: [] });
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(await store.list("/memories/f", 2)).toBeNull();
    expect(await store.list("/memories/nope", 2)).toBeNull();
  });

  it("lists a directory holding only hidden content, with size 0, but not one holding only empty directories", async () => {
    const { root, store } = fresh();
    await store.write("/memories/d/.keep", bytes("12345"), { ifAbsent: true });
    await store.write("/memories/e/node_modules/x/y.js", bytes("123"), { ifAbsent: true });
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(root, "f", ".cache", "empty"), { recursive: true });
    const listing = await store.list("/memories", 2);
    expect(listing?.size).toBe(0);
    expect([...(listing?.entries ?? [])].sort((x, y) => (x.path < y.path ? -1 : 1))).toEqual([
      { path: "/memories/d", kind: "directory", size: 0, depth: 1 },
      { path: "/memories/e", kind: "directory", size: 0, depth: 1 },
    ]);
  });

  it("lists a hidden directory's own content when asked for it by path", async () => {
    const { store } = fresh();
    await store.write("/memories/.h/a", bytes("abc"), { ifAbsent: true });
    const listing = await store.list("/memories/.h", 2);
    expect(listing).toEqual({
      size: 3,
      entries: [{ path: "/memories/.h/a", kind: "file", size: 3, depth: 1 }],
    });
  });

  it("lets the event loop run throughout a view of 10,000 files, its parallel walk included", async () => {
    const { root, store } = fresh();
    const { mkdirSync, writeFileSync } = await import("node:fs");
    for (let d = 0; d < 100; d++) {
      mkdirSync(join(root, `d${d}`));
      for (let f = 0; f < 100; f++) writeFileSync(join(root, `d${d}`, `f${f}.md`), "x\n");
    }
    const { result, turns } = await turnsDuring(() =>
      executeCommand(store, { command: "view", path: "/memories" }),
    );
    expect(result.isError).toBe(false);
    expect(result.content.split("\n")).toHaveLength(2 + 1000 + 1);
    // At least one turn per 256 system calls of the walk (10,000 lstat calls), whatever the machine's speed.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(10_000 / 256));
  });

  it("lets the event loop run during a view of a tree 506 directories deep, every directory counted as several calls", async () => {
    const { root, store } = fresh();
    const { mkdirSync, writeFileSync } = await import("node:fs");
    const deep = join(root, ...Array.from({ length: 506 }, () => "d"));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, "f"), "deep\n");
    const { result, turns } = await turnsDuring(() =>
      executeCommand(store, { command: "view", path: "/memories" }),
    );
    expect(result.content.split("\n").slice(1)).toEqual([
      "5B\t/memories",
      "5B\t/memories/d/",
      "5B\t/memories/d/d/",
    ]);
    // Open, readdir and close of each of the 506 directories: at least 506 × 4 / 256 turns.
    expect(turns).toBeGreaterThanOrEqual(Math.floor((506 * 4) / 256));
  });

  it("walks 10,000 files across nested directories", async () => {
    const { root, store } = fresh();
    const { mkdirSync, writeFileSync } = await import("node:fs");
    let expected = 0;
    for (let d = 0; d < 100; d++) {
      const dir = join(root, `d${d}`, `e${d % 7}`);
      mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 100; f++) {
        const content = "x".repeat((d + f) % 13);
        writeFileSync(join(dir, `f${f}.txt`), content);
        expected += content.length;
      }
    }
    const listing = await store.list("/memories", 2);
    expect(listing?.size).toBe(expected);
    expect(listing?.entries.length).toBe(200);
    const deep = await store.list("/memories", 3);
    expect(deep?.entries.length).toBe(10_200);
    expect(deep?.entries.filter((e) => e.kind === "file").reduce((sum, e) => sum + e.size, 0)).toBe(expected);
  });
});
