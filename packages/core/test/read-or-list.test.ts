import { describe, expect, it } from "vitest";
import {
  executeCommand,
  type FileOrListing,
  ForwardingStore,
  InMemoryStore,
  type Listing,
  type ListOptions,
  limitListing,
} from "../src/index.js";

/** A store that answers view in one call and hands on only the shown entries, as Redis and S3 do. */
class OneCallStore extends ForwardingStore {
  calls: string[] = [];
  override read(path: string) {
    this.calls.push("read");
    return super.read(path);
  }
  override stat(path: string) {
    this.calls.push("stat");
    return super.stat(path);
  }
  override async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    this.calls.push("list");
    const listing = await this.inner.list(dir, depth);
    return listing && limitListing(dir, listing, options?.limit);
  }
  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    this.calls.push("readOrList");
    const file = await this.inner.read(path);
    if (file) return { kind: "file", file };
    const listing = await this.inner.list(path, depth);
    return listing && { kind: "directory", listing: limitListing(path, listing, options?.limit) };
  }
}

const seed = async (store: InMemoryStore) => {
  for (const path of [
    "b/z.md",
    "b/a.md",
    "a.md",
    "c/d/e.md",
    "c/d/f.md",
    "c/x.md",
    "é.md",
    "😀.md",
    "\uE000.md",
  ]) {
    await executeCommand(store, { command: "create", path: `/memories/${path}`, file_text: `${path}\n` });
  }
};

describe("readOrList and listing limits", () => {
  const views: Array<Record<string, unknown>> = [
    { command: "view", path: "/memories" },
    { command: "view", path: "/memories/c" },
    { command: "view", path: "/memories/a.md" },
    { command: "view", path: "/memories/a.md", view_range: [1, 1] },
    { command: "view", path: "/memories/c", view_range: [1, 2] },
    { command: "view", path: "/memories/missing" },
    { command: "view", path: "/memories/missing", view_range: [1, 2] },
  ];

  for (const listLimit of [1, 2, 3, 5, 1000]) {
    it(`gives the same bytes as read-then-list (listLimit ${listLimit})`, async () => {
      const plain = new InMemoryStore();
      const inner = new InMemoryStore();
      await seed(plain);
      await seed(inner);
      const oneCall = new OneCallStore(inner);
      for (const input of views) {
        const expected = await executeCommand(plain, input, { listLimit });
        expect(await executeCommand(oneCall, input, { listLimit })).toEqual(expected);
      }
    });
  }

  it("makes one store call for a view of a file, a directory or a missing path", async () => {
    const inner = new InMemoryStore();
    await seed(inner);
    const store = new OneCallStore(inner);
    for (const path of ["/memories/c", "/memories/a.md", "/memories/missing"]) {
      store.calls = [];
      await executeCommand(store, { command: "view", path });
      expect(store.calls).toEqual(["readOrList"]);
    }
    store.calls = [];
    await executeCommand(store, { command: "view", path: "/memories" });
    expect(store.calls).toEqual(["list"]);
  });

  it("limitListing keeps the first entries in view's order and counts the rest", async () => {
    const store = new InMemoryStore();
    await seed(store);
    const listing = (await store.list("/memories", 2))!;
    const cut = limitListing("/memories", listing, 3);
    expect(cut.entries.map((e) => e.path)).toEqual(["/memories/a.md", "/memories/b", "/memories/b/a.md"]);
    expect(cut.omitted).toBe(listing.entries.length - 3);
    expect(cut.size).toBe(listing.size);
    expect(limitListing("/memories", listing, listing.entries.length)).toBe(listing);
    expect(limitListing("/memories", listing, undefined)).toBe(listing);
  });
});
