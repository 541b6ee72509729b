/**
 * `view_range` on every store: the store's answer, through `readLines` where it has one, equals the view
 * of the same bytes on `InMemoryStore` (which renders from the whole file), for files of every shape and
 * ranges inside, across and past their ends, with the output budget cut short and not.
 */
import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import type { Harness } from "./harness.js";

const encoder = new TextEncoder();

const long = Array.from({ length: 300 }, (_, i) => `line ${i + 1} ${"x".repeat(i % 37)}`).join("\n");

/** File contents by name: empty, with and without a final newline, blank lines, CRLF, non-ASCII, long. */
const FILES: Readonly<Record<string, string>> = {
  "empty.txt": "",
  "one.txt": "a",
  "one-newline.txt": "a\n",
  "two.txt": "a\nb",
  "two-newline.txt": "a\nb\n",
  "blank.txt": "\n\n\n",
  "crlf.txt": "x\r\ny\r\n",
  "unicode.md": "é\n😀 smile\nz\n",
  "wide.txt": `${"w".repeat(90)}\nshort\n${"😀".repeat(30)}\n`,
  "long.txt": `${long}\n`,
};

/** Ranges for a file of `n` lines: inside, across and past its ends, and the invalid ones. */
const rangesFor = (n: number): [number, number][] => [
  [1, 1],
  [1, -1],
  [2, 3],
  [n, n],
  [n, -1],
  [Math.max(1, n - 1), n + 5],
  [n + 1, -1],
  [0, 1],
  [3, 2],
  [120, 180],
];

const lineCount = (text: string): number =>
  text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

export function windowsSuite<S extends MemoryStore>(harness: Harness<S>): void {
  const { describe, it, expect } = harness;
  describe("view_range windows", () => {
    it(
      "shows every range of every file as a view of the whole file would, with the budget cut short or not",
      () =>
        harness.withStore(async (store) => {
          const reference = new InMemoryStore();
          for (const [name, text] of Object.entries(FILES)) {
            const input = { command: "create", path: `/memories/w/${name}`, file_text: text };
            expect((await executeCommand(store, input)).isError).toBe(false);
            expect((await executeCommand(reference, input)).isError).toBe(false);
          }
          for (const [name, text] of Object.entries(FILES)) {
            const path = `/memories/w/${name}`;
            for (const view_range of rangesFor(lineCount(text))) {
              for (const viewCharLimit of [16_000, 40]) {
                const input = { command: "view", path, view_range };
                const label = `${name} ${JSON.stringify(view_range)} budget ${viewCharLimit}`;
                const expected = await executeCommand(reference, input, { viewCharLimit });
                expect(await executeCommand(store, input, { viewCharLimit }), label).toEqual(expected);
              }
            }
          }
          // A directory and a missing file refuse a range as they do without a window.
          for (const path of ["/memories/w", "/memories/w/none.txt"]) {
            const input = { command: "view", path, view_range: [1, 2] };
            expect(await executeCommand(store, input), path).toEqual(await executeCommand(reference, input));
          }
        }),
      harness.timeout,
    );

    it(
      "answers readLines, where the store has it, with the file's size, its line count and the window",
      () =>
        harness.withStore(async (store) => {
          if (!store.readLines) return;
          for (const [name, text] of Object.entries(FILES)) {
            const path = `/memories/w/${name}`;
            await store.write(path, encoder.encode(text), { ifAbsent: true });
            const window = await store.readLines(path, 2, 3);
            if (window === undefined) continue;
            const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
            expect(window, name).toEqual({
              size: encoder.encode(text).byteLength,
              lines: lineCount(text),
              text: lines.slice(1, 3).join("\n"),
            });
          }
          expect(await store.readLines("/memories/w", 1, 2)).toBeNull();
          expect(await store.readLines("/memories/w/none.txt", 1, 2)).toBeNull();
        }),
      harness.timeout,
    );
  });
}
