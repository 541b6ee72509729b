import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { strReplace } from "../src/edit.js";
import { findOccurrences, occurrenceIndexes } from "../src/occurrences.js";

const HEAD = "The memory file has been edited. Here is the snippet showing the change (with line numbers):";

/** The definition, computed the slow way: each occurrence's line counted from the start. */
const slowLines = (text: string, needle: string): number[] => {
  const lines = occurrenceIndexes(text, needle).map((i) => text.slice(0, i).split("\n").length);
  return [...new Set(lines)];
};

/** The snippet by its definition in SPEC §4: split the whole new file and cut lines around the change. */
const slowSnippet = (next: string, at: number, newStr: string): string => {
  const lines = next === "" ? [] : (next.endsWith("\n") ? next.slice(0, -1) : next).split("\n");
  const lineOf = (i: number) => next.slice(0, i).split("\n").length;
  const first = lineOf(at);
  const last = newStr === "" ? first : lineOf(at + newStr.length - 1);
  const from = Math.max(1, first - 4);
  const to = Math.min(lines.length, last + 4);
  const out: string[] = [];
  for (let i = from; i <= to; i++) out.push(`${String(i).padStart(6)}\t${lines[i - 1]}`);
  return out.length > 0 ? `\n${out.join("\n")}` : "";
};

const text = fc.string({ unit: fc.constantFrom("a", "b", "\n"), maxLength: 40 });
const needle = fc.string({ unit: fc.constantFrom("a", "b", "\n"), minLength: 1, maxLength: 4 });

describe("finding occurrences", () => {
  it("gives the lines holding occurrences, ascending and without repeats, as the definition does", () => {
    fc.assert(
      fc.property(text, needle, fc.integer({ min: 1, max: 5 }), (t, n, listed) => {
        const all = slowLines(t, n);
        const found = findOccurrences(t, n, listed);
        const count = occurrenceIndexes(t, n).length;
        if (count === 0) expect(found).toEqual({ kind: "none" });
        else if (count === 1) expect(found).toEqual({ kind: "one", at: t.indexOf(n) });
        else {
          expect(found).toMatchObject({
            kind: "many",
            count,
            lines: all.slice(0, listed),
            more: Math.max(0, all.length - listed),
          });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("compares at most 2n + m characters, whatever the number of occurrences", () => {
    // Periodic needles are the worst case for a search restarted after each occurrence.
    for (const [t, n] of [
      ["a".repeat(200_000), "a".repeat(100_000)],
      ["ab\n".repeat(80_000), "ab\nab\nab\nab\n"],
      ["x\n".repeat(80_000), "x"],
    ] as const) {
      const found = findOccurrences(t, n);
      if (found.kind !== "many") throw new Error("expected several occurrences");
      expect(found.steps).toBeLessThanOrEqual(2 * t.length + n.length);
    }
    expect(findOccurrences("a".repeat(200_000), "a".repeat(100_000))).toMatchObject({
      count: 100_001,
      lines: [1],
      more: 0,
    });
  });

  it("lists the first 20 lines of 80,000 occurrences, then how many more", () => {
    const t = "x\n".repeat(80_000);
    const result = strReplace("/memories/f", t, "x", "y");
    const first = Array.from({ length: 20 }, (_, i) => i + 1).join(", ");
    expect(result).toEqual({
      ok: false,
      error: `No replacement was performed. Multiple occurrences of old_str \`x\` in lines: ${first}, and 79980 more. Please ensure it is unique`,
    });
  });

  it("lists exactly 20 lines without a remainder, and 21 with `, and 1 more`", () => {
    const twenty = strReplace("/memories/f", "x\n".repeat(20), "x", "y");
    expect(twenty).toMatchObject({ error: expect.stringMatching(/in lines: 1, .*, 20\. Please/) });
    const more = strReplace("/memories/f", "x\n".repeat(21), "x", "y");
    expect(more).toMatchObject({ error: expect.stringMatching(/, 19, 20, and 1 more\. Please/) });
  });
});

describe("the success snippet", () => {
  it("matches the definition computed on the whole file", () => {
    const parts = fc.string({ unit: fc.constantFrom("a", "\n", "\r"), maxLength: 30 });
    const unique = fc.string({ unit: fc.constantFrom("Q", "\n"), minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(parts, unique, parts, parts, (before, oldStr, after, newStr) => {
        fc.pre(oldStr.includes("Q"));
        const t = before + oldStr + after;
        const result = strReplace("/memories/f", t, oldStr, newStr);
        const next = before + newStr + after;
        expect(result).toEqual({
          ok: true,
          text: next,
          reply: HEAD + slowSnippet(next, before.length, newStr),
          changed: { start: before.length, end: before.length + newStr.length },
        });
      }),
      { numRuns: 3000 },
    );
  });

  it("numbers lines deep in a large file without splitting it", () => {
    const t = `${"l\n".repeat(500_000)}target\n${"l\n".repeat(10)}`;
    const result = strReplace("/memories/f", t, "target", "done");
    const rows = [499_997, 499_998, 499_999, 500_000].map((n) => `${String(n).padStart(6)}\tl`);
    const after = [500_002, 500_003, 500_004, 500_005].map((n) => `${String(n).padStart(6)}\tl`);
    expect(result).toMatchObject({
      reply: [HEAD, ...rows, `${String(500_001).padStart(6)}\tdone`, ...after].join("\n"),
    });
    const split = String.prototype.split;
    let splitChars = 0;
    String.prototype.split = function (this: string, ...args: Parameters<typeof split>) {
      splitChars += this.length;
      return split.apply(this, args);
    } as typeof split;
    try {
      strReplace("/memories/f", t, "target", "done");
    } finally {
      String.prototype.split = split;
    }
    expect(splitChars).toBeLessThan(100);
  });
});
