import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import {
  executeCommand,
  InMemoryStore,
  type MemoryStore,
  NotFoundError,
  type SearchFile,
  type SearchRequest,
  searchIndexForm,
  searchMemory,
} from "../src/index.js";

const seed = async (files: Record<string, string>, store = new InMemoryStore()): Promise<InMemoryStore> => {
  for (const [path, file_text] of Object.entries(files)) {
    const result = await executeCommand(store, { command: "create", path, file_text }, { sensitive: false });
    expect(result.isError).toBe(false);
  }
  return store;
};

/** Counts reads, so that the fallback's budget and the native path can be told apart. */
class CountingStore extends InMemoryStore {
  reads = 0;
  override async read(path: string) {
    this.reads += 1;
    return super.read(path);
  }
}

describe("searchMemory", () => {
  it("finds lines in byte order of path, then line, case-insensitively by default", async () => {
    const store = await seed({
      "/memories/b.md": "Tea\nno\nmore TEA\n",
      "/memories/a/z.md": "tea time",
      "/memories/\u{1F375}.md": "tea in an emoji file",
      "/memories/\uFFFD.md": "tea after U+FFFD",
    });
    const { hits, more } = await searchMemory(store, { query: "tea" });
    expect(hits).toEqual([
      { path: "/memories/a/z.md", line: 1, text: "tea time" },
      { path: "/memories/b.md", line: 1, text: "Tea" },
      { path: "/memories/b.md", line: 3, text: "more TEA" },
      { path: "/memories/\uFFFD.md", line: 1, text: "tea after U+FFFD" },
      { path: "/memories/\u{1F375}.md", line: 1, text: "tea in an emoji file" },
    ]);
    expect(more).toBe(0);
    const exact = await searchMemory(store, { query: "TEA", caseSensitive: true });
    expect(exact.hits.map((hit) => `${hit.path}:${hit.line}`)).toEqual(["/memories/b.md:3"]);
  });

  it("never searches hidden names, node_modules or what a store reserves", async () => {
    const store = await seed({
      "/memories/.hidden/a.md": "secret tea",
      "/memories/.b.md": "secret tea",
      "/memories/node_modules/c.md": "secret tea",
      "/memories/d/node_modules/e.md": "secret tea",
      "/memories/keep.md": "tea",
    });
    expect((await searchMemory(store, { query: "tea" })).hits.map((hit) => hit.path)).toEqual([
      "/memories/keep.md",
    ]);
    // Not even when the path names them.
    expect((await searchMemory(store, { query: "tea", path: "/memories/.b.md" })).hits).toEqual([]);
    expect((await searchMemory(store, { query: "tea", path: "/memories/node_modules" })).hits).toEqual([]);
  });

  it("searches one file or one directory, and rejects a missing path with NotFoundError", async () => {
    const store = await seed({
      "/memories/a/x.md": "tea",
      "/memories/ab.md": "tea",
      "/memories/b/y.md": "tea",
    });
    expect(
      (await searchMemory(store, { query: "tea", path: "/memories/a/" })).hits.map((h) => h.path),
    ).toEqual(["/memories/a/x.md"]);
    expect((await searchMemory(store, { query: "tea", path: "/memories/ab.md" })).hits).toHaveLength(1);
    await expect(searchMemory(store, { query: "tea", path: "/memories/nope" })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it("keeps `limit` hits and counts the rest in `more`", async () => {
    const store = await seed({ "/memories/a.md": "x\n".repeat(30), "/memories/b.md": "x\n" });
    const result = await searchMemory(store, { query: "x", limit: 25 });
    expect(result.hits).toHaveLength(25);
    expect(result.hits.at(-1)).toEqual({ path: "/memories/a.md", line: 25, text: "x" });
    expect(result.more).toBe(6);
  });

  it("matches within one line: a literal or a pattern never spans a newline", async () => {
    const store = await seed({ "/memories/a.md": "ab\ncd\r\nef" });
    expect((await searchMemory(store, { query: "b\nc" })).hits).toEqual([]);
    expect((await searchMemory(store, { query: "b\\sc", regex: true })).hits).toEqual([]);
    expect((await searchMemory(store, { query: "^cd\\r$", regex: true })).hits).toEqual([
      { path: "/memories/a.md", line: 2, text: "cd\r" },
    ]);
    expect((await searchMemory(store, { query: "^ef$", regex: true })).hits).toHaveLength(1);
  });

  it("treats the query as literal text unless `regex` is set", async () => {
    const store = await seed({ "/memories/a.md": "a.c\nabc\n(x)*\n" });
    expect((await searchMemory(store, { query: "a.c" })).hits.map((h) => h.line)).toEqual([1]);
    expect((await searchMemory(store, { query: "a.c", regex: true })).hits.map((h) => h.line)).toEqual([
      1, 2,
    ]);
    expect((await searchMemory(store, { query: "(x)*" })).hits.map((h) => h.line)).toEqual([3]);
  });

  it("skips files that are not UTF-8 text", async () => {
    const store = await seed({ "/memories/a.md": "tea" });
    await store.write("/memories/b.bin", new Uint8Array([0x74, 0x65, 0x61, 0xff]), { ifAbsent: true });
    expect((await searchMemory(store, { query: "tea" })).hits.map((h) => h.path)).toEqual(["/memories/a.md"]);
  });

  it("stops after its budget of files or bytes, in path order, and says so", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`/memories/f${String(i).padStart(2, "0")}.md`] = "tea\n";
    const store = await seed(files, new CountingStore());
    const byFiles = await searchMemory(store, { query: "tea", maxFilesRead: 5 });
    expect(byFiles.hits.map((h) => h.path)).toEqual([
      "/memories/f00.md",
      "/memories/f01.md",
      "/memories/f02.md",
      "/memories/f03.md",
      "/memories/f04.md",
    ]);
    expect(byFiles.stopped).toEqual({ files: 5, bytes: 20 });
    const byBytes = await searchMemory(store, { query: "tea", maxBytesRead: 10 });
    expect(byBytes.stopped).toEqual({ files: 2, bytes: 8 });
    const all = await searchMemory(store, { query: "tea" });
    expect(all.stopped).toBeUndefined();
    expect(all.hits).toHaveLength(12);
  });

  it("refuses bad options with a TypeError naming them", async () => {
    const store = new InMemoryStore();
    const bad: [object, RegExp][] = [
      [{ query: "" }, /`query` must not be empty/],
      [{ query: "x".repeat(1001) }, /at most 1000 characters/],
      [{ query: 42 }, /`query` must be a string/],
      [{ query: "(", regex: true }, /Invalid regular expression "\(": missing closing \)/],
      [{ query: "x", path: "/etc" }, /outside the memory directory/],
      [{ query: "x", path: "/memories/../x" }, /'\.' or '\.\.' segment/],
      [{ query: "x", limit: 0 }, /`limit` must be an integer from 1 to 10000/],
      [{ query: "x", limit: 10_001 }, /`limit`/],
      [{ query: "x", limit: 1.5 }, /`limit`/],
      [{ query: "x", regex: "yes" }, /`regex` must be a boolean/],
      [{ query: "x", maxFilesRead: -1 }, /`maxFilesRead`/],
    ];
    for (const [options, message] of bad) {
      await expect(searchMemory(store, options as never)).rejects.toThrow(TypeError);
      await expect(searchMemory(store, options as never)).rejects.toThrow(message);
    }
    expect((await searchMemory(store, { query: "x".repeat(1000), limit: 10_000 })).hits).toEqual([]);
  });

  it(
    "runs a pathological pattern over a 1 MiB line in time linear in the text",
    { timeout: 120_000 },
    async () => {
      const line = "a".repeat(1024 * 1024 - 8);
      const store = await seed({ "/memories/big.md": `${line}\nX\n` });
      const result = await searchMemory(store, { query: "(.*)*X", regex: true });
      expect(result.hits.map((hit) => hit.line)).toEqual([2]);
      const nested = await searchMemory(store, { query: "(a|aa)*$X", regex: true });
      expect(nested.hits).toEqual([]);
    },
  );

  it("asks a store's own search first and matches the lines of what it returns", async () => {
    const requests: SearchRequest[] = [];
    class NativeStore extends InMemoryStore {
      async search(request: SearchRequest): Promise<SearchFile[] | null> {
        requests.push(request);
        if (request.regex) return null;
        // A store may return more than matches (b.md) and hidden files (left out by core).
        const out: SearchFile[] = [];
        for (const path of ["/memories/b.md", "/memories/a.md", "/memories/.c.md"]) {
          const file = await this.read(path);
          if (file) out.push({ path, data: file.data });
        }
        return out;
      }
    }
    const native: MemoryStore = await seed(
      { "/memories/a.md": "Tea\n", "/memories/b.md": "no\n", "/memories/.c.md": "tea" },
      new NativeStore(),
    );
    const literal = await searchMemory(native, { query: "TEA" });
    expect(literal.hits).toEqual([{ path: "/memories/a.md", line: 1, text: "Tea" }]);
    expect(requests[0]).toEqual({
      path: "/memories",
      query: "TEA",
      regex: false,
      caseSensitive: false,
      needle: "tea",
    });
    // null: the index cannot narrow it, so core reads the files itself.
    expect((await searchMemory(native, { query: "t.a", regex: true })).hits).toHaveLength(1);
  });
});

describe("searchIndexForm", () => {
  it("keeps the length in code points and joins every case class of the regular expression engine", () => {
    expect(searchIndexForm("Tea ſ K Σς")).toBe("tea s k σσ");
    // Every cased character: what the engine matches case-insensitively has the same index form.
    const cased = new Set<string>();
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      if (c.toLowerCase() !== c || c.toUpperCase() !== c) {
        cased.add(c);
        for (const x of c.toLowerCase() + c.toUpperCase()) cased.add(x);
      }
    }
    const all = [...cased];
    const haystack = all.join("\n");
    let checked = 0;
    for (const c of all) {
      expect([...searchIndexForm(c)]).toHaveLength(1);
      const matcher = RE2JS.compile(RE2JS.quote(c), RE2JS.CASE_INSENSITIVE).matcher(haystack);
      while (matcher.find()) {
        const x = matcher.group() ?? "";
        if (searchIndexForm(x) !== searchIndexForm(c)) expect.fail(`${c} and ${x} fold apart`);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(all.length);
  }, 120_000);
});
