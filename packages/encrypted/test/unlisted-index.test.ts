import {
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  type MemoryStore,
  type WriteCondition,
} from "@mem/core";
import { HistoryStore } from "@mem/history";
import { describe, expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { testKey } from "./helpers.js";

const INDEX = "/memories/.mem-encrypted/unlisted";

/** Counts the writes of the unlisted-file index and the bytes they wrote. */
class IndexWrites extends ForwardingStore {
  writes = 0;
  bytes = 0;
  override async write(path: string, data: Uint8Array, condition: WriteCondition) {
    if (path === INDEX) {
      this.writes++;
      this.bytes += data.byteLength;
    }
    return this.inner.write(path, data, condition);
  }
}

/** The paths the index holds, decrypted by the wrapper itself. */
const indexed = async (store: EncryptedStore): Promise<string[]> => {
  const file = await store.read(INDEX);
  return file ? (JSON.parse(new TextDecoder().decode(file.data)) as string[]) : [];
};

/** The hidden files that exist in the inner store, the wrapper's own bookkeeping left out. */
const hiddenFiles = async (inner: MemoryStore): Promise<string[]> =>
  ((await inner.files?.()) ?? [])
    .map((f) => f.path)
    .filter((p) => /\/\./.test(p.slice("/memories".length)) && !p.includes("/.mem-encrypted"));

describe("EncryptedStore's unlisted-file index", () => {
  it("stays bounded by the hidden files that exist under history (1,500 edits, maxVersions 2)", async () => {
    const inner = new IndexWrites(new InMemoryStore());
    const encrypted = new EncryptedStore(inner, { key: testKey(1) });
    const store = new HistoryStore(encrypted, { maxVersions: 2 });
    const path = "/memories/notes.md";
    await executeCommand(store, { command: "create", path, file_text: "v0\n" });
    for (let i = 1; i <= 1500; i++) {
      const edited = await executeCommand(store, {
        command: "str_replace",
        path,
        old_str: `v${i - 1}\n`,
        new_str: `v${i}\n`,
      });
      expect(edited.isError).toBe(false);
    }
    await store.prune();
    const existing = await hiddenFiles(inner.inner);
    const entries = await indexed(encrypted);
    const last = (await inner.read(INDEX))!.data.byteLength;
    // After prune: the 2 newest versions, the path file and history's running total; beside them, the
    // change log keeps one record per change (1,501 here, up to its bound of 10,000).
    const log = existing.filter((p) => p.includes("/.mem-history/log/"));
    expect(existing.length - log.length).toBeLessThanOrEqual(4);
    expect(log.length).toBe(1501);
    expect(entries.length).toBeLessThanOrEqual(existing.length + 8);
    for (const p of existing) expect(entries).toContain(p);
    // Each index write costs bytes in proportion to the hidden files that exist, not to all ever written
    // (every version ever kept, 1,500 of them pruned, is gone from it).
    const perEntry = 128;
    expect(last).toBeLessThan(perEntry * existing.length + 2048);
    expect(inner.bytes / inner.writes).toBeLessThan(perEntry * existing.length + 2048);
  });

  it("drops the entries of deleted hidden files and directories, and of hidden files renamed away", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: testKey(1) });
    const run = (input: Record<string, unknown>) => executeCommand(store, input);
    for (const p of [
      "/memories/.a",
      "/memories/d/.b",
      "/memories/d/.c/x",
      "/memories/.e",
      "/memories/f/.g",
    ]) {
      expect((await run({ command: "create", path: p, file_text: "x\n" })).isError).toBe(false);
    }
    expect((await indexed(store)).sort()).toEqual([
      "/memories/.a",
      "/memories/.e",
      "/memories/d/.b",
      "/memories/d/.c/x",
      "/memories/f/.g",
    ]);
    await store.delete("/memories/.a");
    await store.delete("/memories/d");
    expect((await indexed(store)).sort()).toEqual(["/memories/.e", "/memories/f/.g"]);
    await store.rename("/memories/.e", "/memories/e.md"); // a hidden file renamed to a listed path
    await store.rename("/memories/f", "/memories/h"); // a directory with a hidden file
    expect((await indexed(store)).sort()).toEqual(["/memories/h/.g"]);
    expect((await store.read("/memories/h/.g"))?.data).toEqual(new TextEncoder().encode("x\n"));
    expect((await store.files()).map((f) => f.path).sort()).toEqual(["/memories/e.md", "/memories/h/.g"]);
  });

  it("keeps the entry of a hidden file written again after it was deleted", async () => {
    const store = new EncryptedStore(new InMemoryStore(), { key: testKey(1) });
    const data = new TextEncoder().encode("x\n");
    await store.write("/memories/.a", data, { ifAbsent: true });
    await store.delete("/memories/.a");
    await store.write("/memories/.a", data, { ifAbsent: true });
    expect(await indexed(store)).toEqual(["/memories/.a"]);
  });
});
