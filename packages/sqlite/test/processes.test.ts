import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { executeCommand } from "@mem/core";
import { exitOf, isSealed, killOnceReady, startFixture, stopFixtures } from "@mem/testkit";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { freshDiskPath, textOf } from "./helpers.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
afterAll(stopFixtures);

/** What SQLite itself says of the file: "ok" when every page and index is sound. */
const integrity = (path: string): string => {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma("integrity_check", { simple: true }) as string;
  } finally {
    db.close();
  }
};

describe("several processes on one database", () => {
  it(
    "lose no edit when 2 processes × 8 writers insert lines into the same files",
    { timeout: 180_000 },
    async () => {
      const path = freshDiskPath();
      const store = new SqliteStore({ path });
      const files = ["/memories/a.md", "/memories/b.md"];
      for (const file of files) {
        const created = await executeCommand(store, { command: "create", path: file, file_text: "END\n" });
        expect(created.isError).toBe(false);
      }
      const writers = 8;
      const count = 12;
      const tags = ["p0", "p1"];
      const exits = await Promise.all(
        tags.map((tag) =>
          exitOf(
            startFixture(packageDir, "insert-worker.ts", [
              path,
              tag,
              String(writers),
              String(count),
              ...files,
            ]),
          ),
        ),
      );
      for (const exit of exits) expect(exit).toEqual({ code: 0, signal: null, stderr: "" });
      const lines: string[] = [];
      for (const file of files) {
        const text = textOf((await store.read(file))?.data) ?? "";
        expect(text.split("\n").filter((line) => line === "END")).toHaveLength(1);
        lines.push(...text.split("\n").filter((line) => line.startsWith("p")));
      }
      const expected = tags.flatMap((tag) =>
        Array.from({ length: writers }, (_, w) =>
          Array.from({ length: count }, (_, i) => `${tag}-${w}-${i}`),
        ).flat(),
      );
      expect(lines.sort()).toEqual(expected.sort());
      const listed = await store.files();
      expect(await store.usage()).toEqual({
        files: 2,
        bytes: listed.reduce((sum, file) => sum + file.size, 0),
      });
      await store.close();
    },
  );
});

describe("opening a new file while another connection writes to it", () => {
  // SQLite answers a switch to WAL with SQLITE_BUSY at once, without waiting the busy timeout, while
  // another connection holds the write lock of a file still in rollback mode: what happens when many
  // processes open a new file together. The store tries its set-up again until the timeout.
  it("waits for the other connection instead of failing the command", { timeout: 60_000 }, async () => {
    const path = freshDiskPath();
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    const store = new SqliteStore({ path, busyTimeoutMs: 30_000 });
    try {
      const released = new Promise<void>((resolve) =>
        setTimeout(() => {
          other.exec("COMMIT");
          resolve();
        }, 500),
      );
      const result = await executeCommand(store, {
        command: "create",
        path: "/memories/first.md",
        file_text: "one\n",
      });
      await released;
      expect(result).toEqual({ content: "File created successfully at: /memories/first.md", isError: false });
      expect(textOf((await store.read("/memories/first.md"))?.data)).toBe("one\n");
    } finally {
      other.close();
      await store.close();
    }
  });

  it(
    "gives up with the SPEC's failure result once the busy timeout has passed",
    { timeout: 60_000 },
    async () => {
      const path = freshDiskPath();
      const other = new Database(path);
      other.exec("BEGIN IMMEDIATE");
      const store = new SqliteStore({ path, busyTimeoutMs: 200 });
      try {
        const result = await executeCommand(store, {
          command: "create",
          path: "/memories/first.md",
          file_text: "one\n",
        });
        expect(result).toEqual({
          content: "Error: create failed for /memories/first.md: the database is locked by another writer",
          isError: true,
        });
      } finally {
        other.exec("COMMIT");
        other.close();
        await store.close();
      }
    },
  );
});

describe("crash safety", () => {
  it(
    "keeps every acknowledged write, tears no file and opens clean across 16 SIGKILLs of a writer",
    { timeout: 240_000 },
    async () => {
      const path = freshDiskPath();
      const acknowledged: string[] = [];
      for (let round = 0; round < 16; round++) {
        const child = startFixture(packageDir, "crash-worker.ts", [path]);
        let out = "";
        child.stdout?.on("data", (chunk: Buffer) => {
          out += chunk.toString();
        });
        const exit = await killOnceReady(child, 80);
        expect(exit.signal, exit.stderr).toBe("SIGKILL");
        // Only lines printed whole count: the last one may have been cut by the kill.
        const complete = out.slice(0, out.lastIndexOf("\n") + 1);
        for (const line of complete.split("\n"))
          if (line.startsWith("ack ")) acknowledged.push(line.slice(4));

        expect(integrity(path)).toBe("ok");
        const store = new SqliteStore({ path });
        try {
          for (const ack of acknowledged) {
            const file = await store.read(ack);
            expect(file && isSealed(file.data), ack).toBe(true);
          }
          const every = await store.files();
          for (const { path: file } of every) {
            const read = await store.read(file);
            expect(read && isSealed(read.data), file).toBe(true);
          }
          // The maintained totals agree with the files themselves.
          expect(await store.usage()).toEqual({
            files: every.length,
            bytes: every.reduce((sum, file) => sum + file.size, 0),
          });
          const listing = await store.list("/memories", 1);
          expect(listing?.size).toBe(every.reduce((sum, file) => sum + file.size, 0));
        } finally {
          await store.close();
        }
      }
      expect(acknowledged.length).toBeGreaterThan(16);
      const store = new SqliteStore({ path });
      const result = await executeCommand(store, {
        command: "create",
        path: "/memories/after.txt",
        file_text: "ok\n",
      });
      expect(result).toEqual({
        content: "File created successfully at: /memories/after.txt",
        isError: false,
      });
      await store.close();
    },
  );
});
