import {
  executeCommand,
  type FileOrListing,
  ForwardingStore,
  InMemoryStore,
  type Listing,
  type ListOptions,
} from "@mem/core";
import { describe, expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { testKey } from "./helpers.js";

/** Records the inner listings, and can forget the file counts, as a store that keeps none would. */
class Recording extends ForwardingStore {
  calls: Array<{ depth: number; options?: ListOptions }> = [];
  constructor(
    inner: InMemoryStore,
    private readonly counts: boolean,
  ) {
    super(inner);
  }
  override async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    this.calls.push(options ? { depth, options } : { depth });
    return this.inner.list(dir, depth, this.counts ? options : { ...options, countFiles: false });
  }
  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    const file = await this.inner.read(path);
    if (file) return { kind: "file", file };
    const listing = await this.list(path, depth, options);
    return listing && { kind: "directory", listing };
  }
}

const paths = ["a.md", "b/c.md", "b/d/e.md", "b/d/f/g.md", "b/.h/x", "n/node_modules/y", "z/1", "z/2", "z/3"];

const seeded = async () => {
  const plain = new InMemoryStore();
  const counting = new Recording(new InMemoryStore(), true);
  const uncounting = new Recording(new InMemoryStore(), false);
  const stores = [
    new EncryptedStore(counting, { key: testKey(1) }),
    new EncryptedStore(uncounting, { key: testKey(1) }),
  ];
  for (const path of paths) {
    const input = {
      command: "create",
      path: `/memories/${path}`,
      file_text: `${path}\n`.repeat(path.length),
    };
    await executeCommand(plain, input);
    for (const store of stores) await executeCommand(store, input);
  }
  return { plain, counting, uncounting, stores };
};

describe("EncryptedStore listings", () => {
  for (const listLimit of [1, 3, 6, 1000]) {
    it(`show plaintext sizes, the same bytes as an unencrypted store (listLimit ${listLimit})`, async () => {
      const { plain, stores } = await seeded();
      for (const path of ["/memories", "/memories/b", "/memories/b/d", "/memories/a.md", "/memories/nope"]) {
        const expected = await executeCommand(plain, { command: "view", path }, { listLimit });
        for (const store of stores) {
          expect(await executeCommand(store, { command: "view", path }, { listLimit })).toEqual(expected);
        }
      }
    });
  }

  it("ask the inner store for the shown depth and limit only, when it counts files", async () => {
    const { counting, uncounting, stores } = await seeded();
    counting.calls = [];
    uncounting.calls = [];
    await executeCommand(stores[0]!, { command: "view", path: "/memories/b" }, { listLimit: 2 });
    expect(counting.calls).toEqual([{ depth: 2, options: { limit: 2, countFiles: true } }]);
    // Without counts it falls back to the whole subtree, once more.
    await executeCommand(stores[1]!, { command: "view", path: "/memories/b" }, { listLimit: 2 });
    expect(uncounting.calls.map((c) => c.depth)).toEqual([2, 1024]);
  });
});
