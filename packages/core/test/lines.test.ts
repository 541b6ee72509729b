import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countLines, lineAt, numberLine, scanLines, splitLines } from "../src/lines.js";

describe("line model", () => {
  it.each([
    ["", []],
    ["a", ["a"]],
    ["a\nb\n", ["a", "b"]],
    ["a\nb", ["a", "b"]],
    ["a\n\n", ["a", ""]],
    ["\n", [""]],
    ["a\r\nb\r\n", ["a\r", "b\r"]],
  ])("splits %j", (text, lines) => {
    expect(splitLines(text)).toEqual(lines);
    expect(countLines(text)).toBe(lines.length);
  });

  it("counts lines the same way it splits them", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "\n", "\r", "é") }), (t) => {
        expect(countLines(t)).toBe(splitLines(t).length);
      }),
    );
  });

  it("finds the line of an index", () => {
    expect(lineAt("a\nb\nc", 0)).toBe(1);
    expect(lineAt("a\nb\nc", 1)).toBe(1);
    expect(lineAt("a\nb\nc", 2)).toBe(2);
    expect(lineAt("a\nb\nc", 4)).toBe(3);
  });

  it("numbers lines right-aligned in six characters", () => {
    expect(numberLine(1, "x")).toBe("     1\tx");
    expect(numberLine(100, "")).toBe("   100\t");
    expect(numberLine(999999, "y")).toBe("999999\ty");
  });

  it("scans bytes once for the line count and a window's byte offsets, at any alignment", () => {
    const encoder = new TextEncoder();
    // Where the `k`-th newline of `text` stands, in bytes; `undefined` when there are fewer.
    const newlineByte = (text: string, k: number): number | undefined => {
      let at = -1;
      for (let seen = 0; seen < k; seen++) {
        at = text.indexOf("\n", at + 1);
        if (at === -1) return undefined;
      }
      return encoder.encode(text.slice(0, at)).length;
    };
    const text = fc.array(fc.constantFrom("a", "\n", "é", "€", "😀", "\n\n", "bcdefgh"), { maxLength: 60 });
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 7 }), fc.nat(30), fc.nat(30), (parts, pad, a, b) => {
        const s = parts.join("");
        const encoded = encoder.encode(s);
        const host = new Uint8Array(pad + encoded.length + 5).fill(0x0a);
        host.set(encoded, pad);
        const bytes = host.subarray(pad, pad + encoded.length);
        const from = Math.min(a, b) + 1;
        const through = Math.max(a, b) + 1;
        const scan = scanLines(bytes, from, through);
        expect(scan.lines).toBe(countLines(s));
        const start = from === 1 ? 0 : newlineByte(s, from - 1);
        expect(scan.start).toBe(start === undefined ? encoded.length : start + (from === 1 ? 0 : 1));
        expect(scan.end).toBe(newlineByte(s, through) ?? encoded.length);
      }),
      { numRuns: 3000 },
    );
    const bytes = encoder.encode("ab\ncd\nef\n");
    expect(scanLines(bytes, 2, 2)).toEqual({ lines: 3, start: 3, end: 5 });
    expect(scanLines(bytes, 3, Number.POSITIVE_INFINITY)).toEqual({ lines: 3, start: 6, end: 9 });
  });
});
