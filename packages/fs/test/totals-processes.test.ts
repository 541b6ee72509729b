import { randomInt } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { describe, expect, it } from "vitest";
import { Dir } from "../src/dir.js";
import { FsStore } from "../src/index.js";
import { countFiles } from "../src/totals.js";
import { exitOf, startFixture, waitForLine } from "./helpers/children.js";
import { bytes, tempDir } from "./helpers/files.js";

const TOTALS = ".~mem-usage";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a walk of the tree counts now, independent of the kept totals. */
const walked = async (root: string): Promise<{ files: number; bytes: number }> => {
  const dir = await Dir.openRoot(root, "path");
  try {
    return await countFiles(dir);
  } finally {
    await dir.close();
  }
};

/** Makes `store` keep totals in its root from its next change on, and makes that change. */
const startKeeping = async (store: FsStore, root: string) => {
  await store.usage();
  await store.write("/memories/start.md", bytes("start"), { ifAbsent: true });
  expect(existsSync(join(root, TOTALS))).toBe(true);
};

describe("kept usage totals across processes", () => {
  it("match a walk after four processes edit one file concurrently", { timeout: 120_000 }, async () => {
    const root = join(tempDir(), "memories");
    const store = new FsStore({ root });
    await startKeeping(store, root);
    const created = await executeCommand(store, {
      command: "create",
      path: "/memories/log.txt",
      file_text: "END\n",
    });
    expect(created.isError).toBe(false);
    const workers = Array.from({ length: 4 }, (_, w) =>
      startFixture("insert-worker.ts", [root, "/memories/log.txt", `w${w}`, "16"]),
    );
    for (const exit of await Promise.all(workers.map(exitOf)))
      expect(exit).toEqual({ code: 0, signal: null, stderr: "" });
    // The workers never asked for usage: they kept the totals because the root already had them.
    const recorded = JSON.parse(readFileSync(join(root, TOTALS), "utf8"));
    expect(recorded.changes).toBeGreaterThanOrEqual(64);
    const truth = await walked(root);
    expect(truth.files).toBe(2);
    expect(await store.usage()).toEqual(truth);
  });

  it("match a walk after concurrent writers of several stores in one process", async () => {
    const root = join(tempDir(), "memories");
    const first = new FsStore({ root });
    await startKeeping(first, root);
    const stores = Array.from({ length: 4 }, () => new FsStore({ root }));
    await Promise.all(
      stores.flatMap((store, s) =>
        Array.from({ length: 10 }, async (_, i) => {
          const path = `/memories/s${s}/f${i}.md`;
          await store.write(path, bytes("x".repeat(i + 1)), { ifAbsent: true });
          if (i % 3 === 0) await store.update(path, (current) => new Uint8Array([...current, 65, 66]));
          if (i % 4 === 1) await store.delete(path);
          if (i % 5 === 2) await store.rename(path, `/memories/moved/s${s}-f${i}.md`);
        }),
      ),
    );
    const truth = await walked(root);
    // Per store 10 written, 3 deleted; bytes 55 + 4 updates × 2 − (2 + 6 + 12) deleted; plus the start file.
    expect(truth).toEqual({ files: 29, bytes: 177 });
    expect(await first.usage()).toEqual(truth);
  });

  it("match a walk again after writers are killed mid-change", { timeout: 180_000 }, async () => {
    const root = join(tempDir(), "memories");
    const store = new FsStore({ root });
    await startKeeping(store, root);
    for (let round = 0; round < 8; round++) {
      const child = startFixture("crash-worker.ts", [root]);
      const exited = exitOf(child);
      await waitForLine(child, "ready");
      await sleep(randomInt(0, 60));
      child.kill("SIGKILL");
      expect((await exited).signal).toBe("SIGKILL");
      // The next change takes the lock (over from the dead worker when it held it) and, where a change
      // may have landed without its totals, counts again before it adds its own.
      await store.write(`/memories/after-${round}.md`, bytes("after"), { ifAbsent: true });
      expect(await store.usage(), `round ${round}`).toEqual(await walked(root));
    }
  });
});
