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

/**
 * A large file: about 87 KB, over the 64 KiB from which stores keep a file's lines between windows and
 * under the 100 KB a hosted memory holds; its lines tagged `tag`.
 */
const largeText = (tag: string): string =>
  `${Array.from({ length: 1_500 }, (_, i) => `${tag} line ${i + 1} ${"x".repeat(40)}`).join("\n")}\n`;

const lineCount = (text: string): number =>
  text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

/** `purges`: the target's stores have scopes whose `purge()` works (the erasure suite runs). */
export function windowsSuite<S extends MemoryStore>(harness: Harness<S>, purges: boolean): void {
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
      "shows every change another instance makes to a large file at the next window",
      () =>
        harness.withStore(async (store) => {
          const path = "/memories/w/large.md";
          const reference = new InMemoryStore();
          const { peer, release } = await harness.openPeer(store);
          try {
            const steps: Array<[MemoryStore, Record<string, unknown>]> = [
              [store, { command: "create", path, file_text: largeText("old") }],
              [peer, { command: "str_replace", path, old_str: "old line 3 ", new_str: "new line 3 " }],
              [peer, { command: "insert", path, insert_line: 0, insert_text: "top" }],
              [peer, { command: "delete", path }],
              [peer, { command: "create", path, file_text: largeText("again") }],
            ];
            for (const [by, input] of steps) {
              expect((await executeCommand(by, input)).isError, JSON.stringify(input).slice(0, 80)).toBe(
                (await executeCommand(reference, input)).isError,
              );
              for (const view_range of [
                [1, 4],
                [1_490, -1],
              ]) {
                const view = { command: "view", path, view_range };
                const label = `${String(input["command"])} ${JSON.stringify(view_range)}`;
                expect(await executeCommand(store, view), label).toEqual(
                  await executeCommand(reference, view),
                );
              }
            }
          } finally {
            await release();
          }
        }),
      harness.timeout,
    );

    if (purges) {
      it(
        "shows a tenant's large file created again after a purge, not the one before it",
        () =>
          harness.withStore(async (store) => {
            const path = "/memories/w/large.md";
            const tenant = store.scope!("kept");
            for (const tag of ["before", "after"]) {
              const create = { command: "create", path, file_text: largeText(tag) };
              expect((await executeCommand(tenant, create)).isError).toBe(false);
              const view = await executeCommand(tenant, { command: "view", path, view_range: [2, 2] });
              expect(view.content).toContain(`${tag} line 2 `);
              if (tag === "before") await tenant.purge!();
            }
          }),
        harness.timeout,
      );
    }

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
