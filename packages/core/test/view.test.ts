import { describe, expect, it } from "vitest";
import { renderFile } from "../src/view.js";

const H = "Here's the content of /memories/f with line numbers:";
const view = (text: string, range?: [number, number], limit = 16_000) =>
  renderFile("/memories/f", new TextEncoder().encode(text), range, limit);

describe("view of a file", () => {
  it("numbers lines without a trailing newline", () => {
    expect(view("Hello World\nThis is line two\n")).toEqual({
      content: `${H}\n     1\tHello World\n     2\tThis is line two`,
      isError: false,
    });
  });

  it("returns the header alone for an empty file", () => {
    expect(view("")).toEqual({ content: H, isError: false });
  });

  it("keeps carriage returns", () => {
    expect(view("a\r\nb\r\n").content).toBe(`${H}\n     1\ta\r\n     2\tb\r`);
  });

  it("applies view_range with -1 and clamping", () => {
    const text = "a\nb\nc\nd\n";
    expect(view(text, [2, 3]).content).toBe(`${H}\n     2\tb\n     3\tc`);
    expect(view(text, [3, -1]).content).toBe(`${H}\n     3\tc\n     4\td`);
    expect(view(text, [4, 99]).content).toBe(`${H}\n     4\td`);
  });

  it("rejects bad ranges", () => {
    expect(view("a\nb\n", [0, 1])).toEqual({
      content:
        "Error: Invalid `view_range`: [0, 1]. Its first element `0` should be within the range of lines of the file: [1, 2]",
      isError: true,
    });
    expect(view("a\nb\n", [3, 3]).content).toContain(
      "Its first element `3` should be within the range of lines of the file: [1, 2]",
    );
    expect(view("", [1, -1]).content).toContain("[1, 0]");
    expect(view("a\nb\n", [2, 1])).toEqual({
      content:
        "Error: Invalid `view_range`: [2, 1]. Its second element `1` should be larger or equal than its first `2`",
      isError: true,
    });
  });

  it("cuts whole lines at the budget and says how to go on", () => {
    const text = "aaaa\nbbbb\ncccc\n"; // each numbered line is 11 characters
    expect(view(text, undefined, 23).content).toBe(
      `${H}\n     1\taaaa\n     2\tbbbb\n... output truncated after line 2 of 3. Call view with view_range [3, 3] to see more.`,
    );
    expect(view(text, undefined, 22).content).toBe(
      `${H}\n     1\taaaa\n... output truncated after line 1 of 3. Call view with view_range [2, 3] to see more.`,
    );
    expect(view(text, [2, 3], 11).content).toBe(
      `${H}\n     2\tbbbb\n... output truncated after line 2 of 3. Call view with view_range [3, 3] to see more.`,
    );
  });

  it("cuts a first requested line that alone exceeds the budget, and says so", () => {
    expect(view("x".repeat(100) + "\ny\n", undefined, 10).content).toBe(
      `${H}\n     1\t${"x".repeat(10)}\n... line 1 is 100 characters long; only its first 10 are shown.\n... output truncated after line 1 of 2. Call view with view_range [2, 2] to see more.`,
    );
    expect(view("a\n" + "x".repeat(100), [2, -1], 10).content).toBe(
      `${H}\n     2\t${"x".repeat(10)}\n... line 2 is 100 characters long; only its first 10 are shown.`,
    );
  });

  it("shows a first line whole when its text fits the budget but its number does not", () => {
    expect(view("x".repeat(10) + "\ny\n", undefined, 10).content).toBe(
      `${H}\n     1\t${"x".repeat(10)}\n... output truncated after line 1 of 2. Call view with view_range [2, 2] to see more.`,
    );
  });

  it("never cuts a surrogate pair in half", () => {
    expect(view(`${"x".repeat(9)}\u{1f600}yy`, undefined, 10).content).toBe(
      `${H}\n     1\t${"x".repeat(9)}\n... line 1 is 13 characters long; only its first 10 are shown.`,
    );
  });

  it("defaults to a budget of 16,000 characters", () => {
    const line = "y".repeat(93); // 100 characters numbered
    const text = `${line}\n`.repeat(200);
    const shown = view(text).content.split("\n");
    // k numbered lines of 100 characters cost 101k - 1: 158 fit (15,957), 159 would be 16,058.
    expect(shown.length).toBe(1 + 158 + 1);
    expect(shown.at(-1)).toBe(
      "... output truncated after line 158 of 200. Call view with view_range [159, 200] to see more.",
    );
  });

  it("keeps a byte order mark and multi-byte text, and refuses bytes that are not UTF-8", () => {
    expect(view("\ufeffé\n\u{1f600}x\n").content).toBe(`${H}\n     1\t\ufeffé\n     2\t\u{1f600}x`);
    expect(renderFile("/memories/f", new Uint8Array([0x61, 0xff, 0x0a]), undefined, 100)).toEqual({
      content: "Error: The file /memories/f is not a UTF-8 text file",
      isError: true,
    });
    expect(renderFile("/memories/f", new Uint8Array([0xe2, 0x82]), undefined, 100).isError).toBe(true);
  });

  it("pages the same as splitting the whole text would", () => {
    const lines = Array.from({ length: 500 }, (_, i) => `${"é".repeat(i % 7)}line ${i}\r`);
    const text = `${lines.join("\n")}\n`;
    for (const [start, end] of [
      [1, 10],
      [250, 260],
      [495, -1],
      [500, 500],
    ] as [number, number][]) {
      const last = end === -1 ? 500 : end;
      const expected = lines.slice(start - 1, last).map((l, i) => `${String(start + i).padStart(6)}\t${l}`);
      expect(view(text, [start, end]).content).toBe(`${H}\n${expected.join("\n")}`);
    }
  });

  it("refuses files over 999,999 lines", () => {
    expect(view("\n".repeat(1_000_000))).toEqual({
      content: "File /memories/f exceeds maximum line limit of 999,999 lines.",
      isError: true,
    });
    expect(view("\n".repeat(999_999), [999_999, -1]).content).toBe(`${H}\n999999\t`);
  });
});
