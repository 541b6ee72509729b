import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { FsStore, isReservedName } from "@mem/fs";
import { describe, expect, it } from "vitest";
import { isSealed } from "./fixtures/sealed.js";
import { exitOf, killOnceReady, startFixture } from "./helpers/children.js";
import { tempDir, text } from "./helpers/files.js";

/** Every entry on disk beneath `dir`, relative, symbolic links not followed. */
const onDisk = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();

describe("several processes sharing one root", () => {
  it(
    "lose no edit when each inserts lines into the same file concurrently",
    { timeout: 120_000 },
    async () => {
      const root = join(tempDir(), "memories");
      const store = new FsStore({ root });
      const created = await executeCommand(store, {
        command: "create",
        path: "/memories/log.txt",
        file_text: "END\n",
      });
      expect(created.isError).toBe(false);
      const workers = 4;
      const perWorker = 24;
      const children = Array.from({ length: workers }, (_, w) =>
        startFixture("insert-worker.ts", [root, "/memories/log.txt", `w${w}`, String(perWorker)]),
      );
      const exits = await Promise.all(children.map(exitOf));
      for (const exit of exits) expect(exit).toEqual({ code: 0, signal: null, stderr: "" });
      const lines = text((await store.read("/memories/log.txt"))?.data)?.split("\n") ?? [];
      const expected = Array.from({ length: workers }, (_, w) =>
        Array.from({ length: perWorker }, (_, i) => `w${w}-${i}`),
      ).flat();
      expect(lines.filter((line) => line.startsWith("w")).sort()).toEqual(expected.sort());
      expect(lines.filter((line) => line === "END")).toHaveLength(1);
      expect(onDisk(root)).toEqual(["log.txt"]);
    },
  );
});

describe("crash safety", () => {
  it(
    "keeps every file whole and the store usable across 24 SIGKILLs at random moments",
    { timeout: 180_000 },
    async () => {
      const root = join(tempDir(), "memories");
      const store = new FsStore({ root });
      for (let round = 0; round < 24; round++) {
        const exit = await killOnceReady(startFixture("crash-worker.ts", [root]), 60);
        expect(exit.signal, exit.stderr).toBe("SIGKILL");

        // Every file the store shows holds one complete version; nothing reserved is shown.
        const listing = await store.list("/memories", 10);
        for (const entry of listing?.entries ?? []) {
          expect(entry.path.split("/").some((name) => name.startsWith("."))).toBe(false);
          if (entry.kind !== "file") continue;
          const file = await store.read(entry.path);
          expect(file && isSealed(file.data), entry.path).toBe(true);
        }
        // Leftovers, if any, are only the store's own reserved names.
        for (const path of onDisk(root)) {
          const hidden = path.split("/").filter((name) => name.startsWith("."));
          for (const name of hidden) expect(isReservedName(name), path).toBe(true);
        }
      }

      // The store still works, and taking over the dead worker's lock (if it held one) cleans up.
      const result = await executeCommand(store, {
        command: "create",
        path: "/memories/after.txt",
        file_text: "ok\n",
      });
      expect(result).toEqual({
        content: "File created successfully at: /memories/after.txt",
        isError: false,
      });
      const leftovers = onDisk(root).filter((path) =>
        path.split("/").some((name) => name.startsWith(".~mem-tmp-")),
      );
      expect(leftovers).toEqual([]);
      expect(onDisk(root)).not.toContain(".~mem-lock");
      for (const path of onDisk(root)) {
        const full = join(root, path);
        if (statSync(full).isDirectory() && !path.split("/").some((n) => n.startsWith("."))) {
          expect(readdirSync(full).length, `${path} is empty`).toBeGreaterThan(0);
        }
      }
      const view = await executeCommand(store, { command: "view", path: "/memories/after.txt" });
      expect(view.content).toBe("Here's the content of /memories/after.txt with line numbers:\n     1\tok");
    },
  );
});
