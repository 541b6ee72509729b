import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countLines, lineAt, numberLine, splitLines } from "../src/lines.js";

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
});
