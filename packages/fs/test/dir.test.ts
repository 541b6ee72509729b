import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Dir } from "../src/dir.js";
import { tempDir } from "./helpers.js";

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
