import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Dir } from "../src/dir.js";
import { tempDir } from "./helpers/files.js";

describe("directory handles", () => {
  it("pin calls to the directory they opened, even after it is swapped for a link (descriptor mode)", async () => {
    const base = tempDir();
    const root = join(base, "root");
    mkdirSync(join(root, "a"), { recursive: true });
    mkdirSync(join(base, "outside"));
    const rootDir = await Dir.openRoot(root, "descriptor");
    const child = await rootDir.openChild("a");
    if (typeof child === "string") throw new Error("expected a directory");
    try {
      // Another program swaps the checked directory for a link to outside the root.
      renameSync(join(root, "a"), join(root, "a-moved"));
      symlinkSync(join(base, "outside"), join(root, "a"));
      await writeFile(child.at("x.txt"), "pinned");
      expect(readFileSync(join(root, "a-moved", "x.txt"), "utf8")).toBe("pinned");
      expect(existsSync(join(base, "outside", "x.txt"))).toBe(false);
    } finally {
      await child.close();
      await rootDir.close();
    }
  });

  it("report a link where a directory is expected as a refusal", async () => {
    const base = tempDir();
    mkdirSync(join(base, "root"));
    mkdirSync(join(base, "outside"));
    symlinkSync(join(base, "outside"), join(base, "root", "l"));
    const rootDir = await Dir.openRoot(join(base, "root"), "descriptor");
    try {
      await expect(rootDir.openChild("l")).rejects.toThrow("symbolic link not followed");
      expect(await rootDir.openChild("missing")).toBe("missing");
    } finally {
      await rootDir.close();
    }
  });
});

describe("shared directory fsyncs", () => {
  it("join the next fsync to start, never one already running", async () => {
    const dir = await Dir.openRoot(tempDir(), "descriptor");
    const started: number[] = [];
    let release: () => void = () => {};
    const original = dir.sync.bind(dir);
    dir.sync = async () => {
      started.push(started.length);
      if (started.length === 1) {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      }
      await original();
    };
    const first = dir.syncShared();
    // These arrive while the first fsync runs: they share one more, which starts after it.
    const later = Array.from({ length: 10 }, () => dir.syncShared());
    expect(started).toEqual([0]);
    release();
    await Promise.all([first, ...later]);
    expect(started).toEqual([0, 1]);
    // Nothing running: the next caller starts its own.
    await dir.syncShared();
    expect(started).toEqual([0, 1, 2]);
    await dir.close();
  });
});
