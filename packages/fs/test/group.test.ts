import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ConflictError, executeCommand } from "@mem/core";
import { FsStore } from "@mem/fs";
import { describe, expect, it } from "vitest";
import { bytes, tempDir, text } from "./helpers/files.js";

// Changes queued by one process while the lock is held run together under the next hold; edits of
// distinct files at once. Each caller still gets its own result, after the lock is released.
describe("group commit", () => {
  it("gives each change its own result, in queue order, with nothing lost", async () => {
    const root = join(tempDir(), "memories");
    const stores = Array.from({ length: 16 }, () => new FsStore({ root }));
    const reader = new FsStore({ root });
    await Promise.all(
      stores.map((store, i) => store.write(`/memories/agent-${i}.md`, bytes(""), { ifAbsent: true })),
    );
    await reader.write("/memories/shared.md", bytes(""), { ifAbsent: true });
    const edits = stores.flatMap((store, i) =>
      Array.from({ length: 10 }, (_, k) => [
        executeCommand(store, {
          command: "insert",
          path: `/memories/agent-${i}.md`,
          insert_line: 0,
          insert_text: `a${k}`,
        }),
        executeCommand(store, {
          command: "insert",
          path: "/memories/shared.md",
          insert_line: 0,
          insert_text: `s${i}-${k}`,
        }),
      ]).flat(),
    );
    const results = await Promise.all(edits);
    expect(results.every((r) => !r.isError)).toBe(true);
    for (let i = 0; i < 16; i++) {
      const lines = (text((await reader.read(`/memories/agent-${i}.md`))?.data) ?? "")
        .split("\n")
        .filter(Boolean);
      // One agent's inserts at line 0 of its own file ran in the order they were queued.
      expect(lines).toEqual(Array.from({ length: 10 }, (_, k) => `a${9 - k}`));
    }
    const shared = (text((await reader.read("/memories/shared.md"))?.data) ?? "").split("\n").filter(Boolean);
    expect(shared.sort()).toEqual(
      Array.from({ length: 16 }, (_, i) => Array.from({ length: 10 }, (_, k) => `s${i}-${k}`))
        .flat()
        .sort(),
    );
    // Lock and temporary files are gone by the time the callers hear back.
    expect(readdirSync(root).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("fails a change on its own, and runs a create before an edit of the same file queued after it", async () => {
    const store = new FsStore({ root: join(tempDir(), "memories") });
    await store.write("/memories/a.md", bytes("a"), { ifAbsent: true });
    const [stale, fine, created, edited] = await Promise.allSettled([
      store.write("/memories/a.md", bytes("x"), { ifVersion: "not-the-version" }),
      store.update("/memories/a.md", () => bytes("A")),
      store.write("/memories/b.md", bytes("b"), { ifAbsent: true }),
      store.update("/memories/b.md", (current) => bytes(`${text(current)}B`)),
    ]);
    expect(stale.status === "rejected" && stale.reason).toBeInstanceOf(ConflictError);
    expect(fine).toEqual({ status: "fulfilled", value: true });
    expect(created.status).toBe("fulfilled");
    expect(edited).toEqual({ status: "fulfilled", value: true });
    expect(text((await store.read("/memories/a.md"))?.data)).toBe("A");
    expect(text((await store.read("/memories/b.md"))?.data)).toBe("bB");
  });
});
