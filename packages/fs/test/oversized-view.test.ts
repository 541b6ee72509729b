import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FsStore } from "../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

/** A store whose root holds files written around the tool, as another program would. */
const storeWith = (files: Record<string, number>) => {
  const dir = mkdtempSync(join(tmpdir(), "mem-fs-oversized-"));
  dirs.push(dir);
  const root = join(dir, "memories");
  mkdirSync(root);
  for (const [name, size] of Object.entries(files)) {
    writeFileSync(join(root, name), "");
    truncateSync(join(root, name), size); // sparse: a large file without writing its bytes
  }
  return new FsStore({ root });
};

describe("a file too large for a view, written around the tool", () => {
  it("is refused by its size without being read", async () => {
    const store = storeWith({ "big.txt": 700 * 1024 * 1024, "big.png": 6 * 1024 * 1024 });
    const read = vi.spyOn(store, "read");
    const readOrList = vi.spyOn(store, "readOrList");
    expect(await executeCommand(store, { command: "view", path: "/memories/big.txt" })).toEqual({
      content: `Error: The file /memories/big.txt is ${700 * 1024 * 1024} bytes, which exceeds the limit of 1048576 bytes`,
      isError: true,
    });
    expect(await executeCommand(store, { command: "view", path: "/memories/big.png" })).toEqual({
      content: `Error: The image /memories/big.png is ${6 * 1024 * 1024} bytes, which exceeds the limit of 5242880 bytes`,
      isError: true,
    });
    expect(read).not.toHaveBeenCalled();
    expect(readOrList).not.toHaveBeenCalled();
    expect(
      await executeCommand(store, { command: "view", path: "/memories/big.png", view_range: [1, 2] }),
    ).toEqual({
      content: "Error: The `view_range` parameter is not allowed when `path` points to an image.",
      isError: true,
    });
  });
});
