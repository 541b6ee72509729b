import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FsStore } from "../src/index.js";
import { tempDir } from "./helpers/files.js";

describe("FsStore.files", () => {
  it("lists every regular file with its size, hidden and node_modules ones included", async () => {
    const root = tempDir();
    const store = new FsStore({ root });
    const data = (s: string) => new TextEncoder().encode(s);
    await store.write("/memories/a.md", data("abc"), { ifAbsent: true });
    await store.write("/memories/.hidden/b.md", data("hello"), { ifAbsent: true });
    await store.write("/memories/x/node_modules/c.js", data(""), { ifAbsent: true });
    const files = (await store.files()).sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(files).toEqual([
      { path: "/memories/.hidden/b.md", size: 5 },
      { path: "/memories/a.md", size: 3 },
      { path: "/memories/x/node_modules/c.js", size: 0 },
    ]);
  });

  it("leaves out the store's reserved files, links and what links point to", async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, "secret.txt"), "outside");
    mkdirSync(join(outside, "dir"));
    writeFileSync(join(outside, "dir", "inner.txt"), "outside");
    const store = new FsStore({ root });
    await store.write("/memories/kept.md", new TextEncoder().encode("k"), { ifAbsent: true });
    writeFileSync(join(root, ".~mem-tmp-leftover"), "temporary");
    symlinkSync(join(outside, "secret.txt"), join(root, "link.txt"));
    symlinkSync(join(outside, "dir"), join(root, "linkdir"));
    expect(await store.files()).toEqual([{ path: "/memories/kept.md", size: 1 }]);
  });
});
