import { describe, expect, it } from "vitest";
import { executeCommand } from "../src/execute.js";
import { ForwardingStore } from "../src/forwarding-store.js";
import { LineCache } from "../src/line-cache.js";
import { LineIndex } from "../src/line-index.js";
import { linesOfText } from "../src/lines.js";
import { InMemoryStore } from "../src/memory-store.js";
import { msg } from "../src/messages.js";
import { mountStores } from "../src/mounts/mount-store.js";
import type { LineWindow } from "../src/store.js";

/** InMemoryStore with `readLines` from its own text, counting its reads and windows. */
class WindowedStore extends InMemoryStore {
  reads = 0;
  windows: Array<[string, number, number]> = [];
  /** Paths for which `readLines` answers `undefined`, as a store does for a file it cannot split. */
  readonly opaque = new Set<string>();

  override async read(path: string) {
    this.reads++;
    return super.read(path);
  }

  async readLines(path: string, from: number, through: number): Promise<LineWindow | null | undefined> {
    this.windows.push([path, from, through]);
    if (this.opaque.has(path)) return undefined;
    const file = await super.read(path);
    if (!file) return null;
    const text = new TextDecoder("utf-8", { fatal: true }).decode(file.data);
    return { size: file.data.byteLength, ...linesOfText(text, from, through) };
  }
}

const create = (store: InMemoryStore, path: string, text: string) =>
  executeCommand(store, { command: "create", path, file_text: text });
const view = (
  store: InMemoryStore | ReturnType<typeof mountStores>,
  path: string,
  range?: [number, number],
) => executeCommand(store, range ? { command: "view", path, view_range: range } : { command: "view", path });

describe("linesOfText", () => {
  it.each([
    ["", 1, 5, { lines: 0, text: "" }],
    ["a", 1, 1, { lines: 1, text: "a" }],
    ["a\n", 1, 9, { lines: 1, text: "a" }],
    ["a\nb\nc\n", 2, 9, { lines: 3, text: "b\nc" }],
    ["a\nb\nc", 2, 2, { lines: 3, text: "b" }],
    ["a\nb\nc", 3, 3, { lines: 3, text: "c" }],
    ["a\nb\n", 3, 4, { lines: 2, text: "" }],
    ["\n\n", 1, 2, { lines: 2, text: "\n" }],
    ["x\r\ny\r\n", 2, 2, { lines: 2, text: "y\r" }],
  ])("%j from %i through %i", (text, from, through, expected) => {
    expect(linesOfText(text, from, through)).toEqual(expected);
  });
});

describe("LineIndex", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const shapes = [
    "",
    "a",
    "a\n",
    "\n",
    "\n\n",
    "a\nb\nc\n",
    "a\nb\nc",
    "x\r\ny\r\n",
    "\uFEFFbom\nline",
    "é😀\n中文\n\nend",
    Array.from({ length: 3000 }, (_, i) => `row ${i}`).join("\n"),
  ];

  it("answers every window of every shape as linesOfText does, with the size in bytes", () => {
    for (const text of shapes) {
      const bytes = encode(text);
      const index = LineIndex.of(bytes)!;
      const n = index.lines;
      expect(index.size).toBe(bytes.length);
      for (const from of [0, 1, 2, 3, n - 1, n, n + 1, n + 2]) {
        if (from < 0) continue;
        for (const through of [from, from + 1, from + 5, n, n + 1, 1_000_000, Number.POSITIVE_INFINITY]) {
          if (through < from) continue;
          const expected = { size: bytes.length, ...linesOfText(text, from, through) };
          const label = JSON.stringify([text.slice(0, 20), from, through]);
          expect(index.window(from, through), label).toEqual(expected);
          expect(LineIndex.ofText(text, bytes.length).window(from, through), label).toEqual(expected);
          expect(LineIndex.windowOf(bytes, from, through), label).toEqual(expected);
        }
      }
    }
  });

  it("refuses bytes that are not UTF-8, and counts what it holds", () => {
    expect(LineIndex.of(new Uint8Array([0x61, 0x0a, 0xff, 0x0a]))).toBeUndefined();
    expect(LineIndex.windowOf(new Uint8Array([0x61, 0x0a, 0xff, 0x0a]), 1, 1)).toBeUndefined();
    const index = LineIndex.of(encode("a\nb\nc\n"))!;
    expect(index.footprint).toBe(6 + 3 * 4);
  });
});

describe("LineCache", () => {
  const indexOf = (bytes: number) => LineIndex.of(new Uint8Array(bytes).fill(0x61))!;

  it("keeps at most its budget, dropping the least recently used first", () => {
    const cache = new LineCache(300_000);
    cache.put("a", "g/1", indexOf(100_000));
    cache.put("b", "g/1", indexOf(100_000));
    cache.put("c", "g/1", indexOf(100_000));
    expect(cache.get("a")?.token).toBe("g/1"); // a is now the most recently used
    cache.put("d", "g/1", indexOf(100_000));
    expect(cache.get("b")).toBeUndefined();
    expect(["a", "c", "d"].map((key) => cache.get(key) !== undefined)).toEqual([true, true, true]);
    expect(cache.bytes).toBe(300_000);
  });

  it("keeps neither small files, nor files over the budget, nor bytes read without a token", () => {
    const cache = new LineCache(150_000);
    cache.put("small", "g/1", indexOf(1_000));
    cache.put("large", "g/1", indexOf(200_000));
    cache.put("fenced", "", indexOf(100_000));
    expect(cache.bytes).toBe(0);
    expect([1_000, 100_000, 150_000, 200_000].map((size) => cache.keeps(size))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    cache.put("kept", "g/1", indexOf(100_000));
    cache.put("kept", "g/2", indexOf(120_000));
    expect(cache.get("kept")?.token).toBe("g/2");
    expect(cache.bytes).toBe(120_000);
  });

  it("answers readLines from what the server said: missing, unchanged, or the content now", () => {
    const cache = new LineCache(1_000_000);
    const text = Array.from({ length: 2_000 }, (_, i) => `line ${i + 1} ${"x".repeat(40)}`).join("\n");
    const bytes = new TextEncoder().encode(text);
    const expected = (from: number, through: number) => ({
      size: bytes.length,
      ...linesOfText(text, from, through),
    });
    // Large bytes are kept, as their own memory when they are a view of a larger buffer.
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    const view = padded.subarray(4, 4 + bytes.length);
    expect(cache.window("a", cache.get("a"), { token: "1", content: view }, 5, 6)).toEqual(expected(5, 6));
    padded.fill(0x7a);
    expect(cache.get("a")?.token).toBe("1");
    expect(cache.window("a", cache.get("a"), { token: "1", content: null }, 1_999, 2_005)).toEqual(
      expected(1_999, 2_005),
    );
    // A new token replaces what was kept; a text keeps its lines too.
    expect(
      cache.window("a", cache.get("a"), { token: "2", content: text, size: bytes.length }, 7, 7),
    ).toEqual(expected(7, 7));
    expect(cache.get("a")?.token).toBe("2");
    // Missing, or bytes that are not UTF-8: nothing kept, and null or undefined.
    expect(cache.window("a", cache.get("a"), null, 1, 1)).toBeNull();
    expect(cache.get("a")).toBeUndefined();
    const notUtf8 = new Uint8Array(bytes.length).fill(0xff);
    expect(cache.window("b", undefined, { token: "3", content: notUtf8 }, 1, 1)).toBeUndefined();
    // Small files and a cache of size 0 keep nothing, and still answer in one pass.
    expect(new LineCache(0).window("c", undefined, { token: "4", content: bytes }, 3, 4)).toEqual(
      expected(3, 4),
    );
    expect(cache.window("d", undefined, { token: "5", content: bytes.subarray(0, 100) }, 1, 1)).toEqual({
      size: 100,
      ...linesOfText(text.slice(0, 100), 1, 1),
    });
    expect(cache.get("c") ?? cache.get("d")).toBeUndefined();
  });
});

describe("view_range through a store's readLines", () => {
  it("renders the window as the whole file would, without reading the file", async () => {
    const windowed = new WindowedStore();
    const plain = new InMemoryStore();
    const text = `${Array.from({ length: 50 }, (_, i) => `row ${i + 1}`).join("\n")}\n`;
    for (const store of [windowed, plain]) await create(store, "/memories/log.md", text);
    windowed.reads = 0;
    for (const range of [
      [1, 1],
      [10, 20],
      [45, -1],
      [50, 60],
      [51, -1],
      [0, 3],
      [9, 8],
    ] as [number, number][]) {
      expect(await view(windowed, "/memories/log.md", range), JSON.stringify(range)).toEqual(
        await view(plain, "/memories/log.md", range),
      );
    }
    expect(windowed.reads).toBe(0);
    // `-1` and ranges past the end ask for at most the line limit; an invalid end asks for the first line.
    expect(windowed.windows).toContainEqual(["/memories/log.md", 45, 1_000_000]);
    expect(windowed.windows).toContainEqual(["/memories/log.md", 9, 9]);
  });

  it("refuses a directory, a missing file and an oversized file as before", async () => {
    const windowed = new WindowedStore();
    await create(windowed, "/memories/dir/a.md", "a\n");
    expect(await view(windowed, "/memories/dir", [1, 2])).toEqual({
      content: msg.viewRangeOnDirectory(),
      isError: true,
    });
    expect(await view(windowed, "/memories/none.md", [1, 2])).toEqual({
      content: msg.viewMissing("/memories/none.md"),
      isError: true,
    });
    const big = "x\n".repeat(40);
    await create(windowed, "/memories/big.md", big);
    expect(
      await executeCommand(
        windowed,
        { command: "view", path: "/memories/big.md", view_range: [1, 2] },
        { maxFileBytes: 50 },
      ),
    ).toEqual({ content: msg.fileOverLimit("/memories/big.md", big.length, 50), isError: true });
  });

  it("reads the whole file when the store cannot split it, and never asks for an image's lines", async () => {
    const windowed = new WindowedStore();
    await create(windowed, "/memories/a.md", "one\ntwo\n");
    windowed.opaque.add("/memories/a.md");
    windowed.reads = 0;
    const shown = await view(windowed, "/memories/a.md", [2, 2]);
    expect(shown).toEqual({ content: `${msg.fileHeader("/memories/a.md")}\n     2\ttwo`, isError: false });
    expect(windowed.reads).toBe(1);

    await windowed.write("/memories/p.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { ifAbsent: true });
    windowed.windows = [];
    expect(await view(windowed, "/memories/p.png", [1, 2])).toEqual({
      content: msg.viewRangeOnImage(),
      isError: true,
    });
    expect(windowed.windows).toEqual([]);
  });

  it("is not forwarded by a wrapper, and a mount table routes it to the path's store", async () => {
    const windowed = new WindowedStore();
    expect((new ForwardingStore(windowed) as { readLines?: unknown }).readLines).toBeUndefined();

    const home = new InMemoryStore();
    const team = new WindowedStore();
    const memory = mountStores({ "/memories": { store: home }, "/memories/team": { store: team } });
    await executeCommand(memory, { command: "create", path: "/memories/team/t.md", file_text: "a\nb\nc\n" });
    await executeCommand(memory, { command: "create", path: "/memories/h.md", file_text: "a\nb\nc\n" });
    team.reads = 0;
    expect(await view(memory, "/memories/team/t.md", [2, 3])).toEqual({
      content: `${msg.fileHeader("/memories/team/t.md")}\n     2\tb\n     3\tc`,
      isError: false,
    });
    expect(team.windows).toEqual([["/memories/t.md", 2, 3]]);
    expect(team.reads).toBe(0);
    // The home mount has no windows: its file is read whole, with the same answer.
    expect(await view(memory, "/memories/h.md", [2, 3])).toEqual({
      content: `${msg.fileHeader("/memories/h.md")}\n     2\tb\n     3\tc`,
      isError: false,
    });
    expect(await view(memory, "/memories/team", [1, 1])).toEqual({
      content: msg.viewRangeOnDirectory(),
      isError: true,
    });
  });
});
