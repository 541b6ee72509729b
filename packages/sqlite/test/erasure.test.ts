import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { executeCommand, type MemoryStore } from "@mem/core";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { freshPath } from "./helpers.js";

const paths: string[] = [];
afterEach(() => {
  for (const path of paths.splice(0)) rmSync(dirname(path), { recursive: true, force: true });
});

const must = async (store: MemoryStore, input: Record<string, unknown>): Promise<void> => {
  const result = await executeCommand(store, input);
  if (result.isError) throw new Error(result.content);
};

/** How many times `needle` occurs in the raw bytes of the database file and its write-ahead log. */
const occurrences = (path: string, needle: string): number => {
  let count = 0;
  for (const file of [path, `${path}-wal`]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue;
    }
    for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) count += 1;
  }
  return count;
};

describe("purge and the database file", () => {
  it("leaves no byte of the purged tenant's current or earlier contents in the file after a checkpoint", async () => {
    const path = freshPath();
    paths.push(path);
    const store = new SqliteStore({ path });
    const gone = store.scope("gone");
    const kept = store.scope("kept");
    // Earlier contents: each edit frees the cell (and overflow pages) that held the text before.
    const big = (tag: string) => `${tag}\n${"x".repeat(6000)}\n`;
    await must(gone, { command: "create", path: "/memories/a.md", file_text: big("purgedQoneZ") });
    await must(gone, {
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "purgedQoneZ",
      new_str: "purgedQtwoZ",
    });
    await must(gone, {
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "purgedQtwoZ",
      new_str: "purgedQthreeZ",
    });
    await must(gone, { command: "create", path: "/memories/small.md", file_text: "purgedQsmallZ\n" });
    await must(gone, {
      command: "str_replace",
      path: "/memories/small.md",
      old_str: "purgedQsmallZ",
      new_str: "purgedQsmall2Z",
    });
    await must(gone, { command: "create", path: "/memories/deleted.md", file_text: "purgedQdeletedZ\n" });
    await must(gone, { command: "delete", path: "/memories/deleted.md" });
    // Small rows of both tenants share pages: a purge frees cells beside rows that stay.
    for (let i = 0; i < 40; i += 1) {
      await must(kept, { command: "create", path: `/memories/k${i}.md`, file_text: `keptQoneZ ${i}\n` });
      await must(gone, { command: "create", path: `/memories/g${i}.md`, file_text: `purgedQmanyZ ${i}\n` });
      await must(gone, {
        command: "str_replace",
        path: `/memories/g${i}.md`,
        old_str: "purgedQmanyZ",
        new_str: "purgedQeditZ",
      });
    }
    const checkpoint = () => {
      const db = new Database(path);
      try {
        db.pragma("wal_checkpoint(TRUNCATE)");
      } finally {
        db.close();
      }
    };
    await store.close();
    checkpoint();
    // The scan sees what it later claims is gone.
    expect(occurrences(path, "purgedQthreeZ")).toBeGreaterThan(0);

    const reopened = new SqliteStore({ path });
    expect(await reopened.scope("gone").purge?.()).toMatchObject({ files: 42 });
    await reopened.close();
    checkpoint();
    for (const marker of [
      "purgedQoneZ",
      "purgedQtwoZ",
      "purgedQthreeZ",
      "purgedQsmallZ",
      "purgedQsmall2Z",
      "purgedQdeletedZ",
      "purgedQmanyZ",
      "purgedQeditZ",
    ]) {
      expect(occurrences(path, marker), marker).toBe(0);
    }
    expect(occurrences(path, "keptQoneZ")).toBeGreaterThan(0);
  });
});
