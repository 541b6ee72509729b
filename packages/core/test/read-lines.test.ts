import { describe, expect, it } from "vitest";
import { executeCommand } from "../src/execute.js";
import { ForwardingStore } from "../src/forwarding-store.js";
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
