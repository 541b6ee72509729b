import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { insertLines, occurrences, strReplace } from "../src/edit.js";
import { splitLines } from "../src/lines.js";

const HEAD = "The memory file has been edited. Here is the snippet showing the change (with line numbers):";

describe("insert", () => {
  it.each([
    ["A\nB\n", 1, "X", "A\nX\nB\n"],
    ["A\nB\n", 2, "X", "A\nB\nX\n"],
    ["A\nB", 2, "X", "A\nB\nX"],
    ["", 0, "X", "X\n"],
    ["A\nB\n", 0, "P\nQ\n", "P\nQ\nA\nB\n"],
    ["A\nB", 2, "X\n", "A\nB\nX\n"],
    ["A\nB", 0, "X", "X\nA\nB"],
    ["A", 1, "", "A\n"],
  ])("%j at %i with %j", (text, line, insert, expected) => {
    expect(insertLines("/memories/f", text, line, insert)).toEqual({
      ok: true,
      text: expected,
      reply: "The file /memories/f has been edited.",
    });
  });

  it("rejects lines outside [0, n]", () => {
    expect(insertLines("/memories/f", "A\nB\n", 3, "X")).toEqual({
      ok: false,
      error:
        "Error: Invalid `insert_line` parameter: 3. It should be within the range of lines of the file: [0, 2]",
    });
    expect(insertLines("/memories/f", "", -1, "X")).toMatchObject({ ok: false });
  });

  it("keeps every old line and adds the new ones at k", () => {
    const text = fc
      .array(fc.string({ unit: fc.constantFrom("a", "b", "\r") }), { maxLength: 8 })
      .chain((lines) =>
        fc.tuple(
          fc.constant(lines),
          fc.boolean(),
          fc.integer({ min: 0, max: lines.length }),
          fc.array(fc.string({ unit: fc.constantFrom("x", "y") }), { minLength: 1, maxLength: 3 }),
          fc.boolean(),
        ),
      );
    fc.assert(
      fc.property(text, ([lines, trailing, k, added, addedTrailing]) => {
        fc.pre(trailing || lines.at(-1) !== "");
        const before = trailing ? lines.map((l) => `${l}\n`).join("") : lines.join("\n");
        fc.pre(addedTrailing || added.at(-1) !== "");
        const insert = addedTrailing ? added.map((l) => `${l}\n`).join("") : added.join("\n");
        const result = insertLines("/memories/f", before, k, insert);
        if (!result.ok) throw new Error(result.error);
        const old = splitLines(before);
        expect(splitLines(result.text)).toEqual([...old.slice(0, k), ...added, ...old.slice(k)]);
      }),
    );
  });
});

describe("str_replace", () => {
  it("counts overlapping occurrences", () => {
    expect(occurrences("aaa", "aa")).toEqual([0, 1]);
    expect(strReplace("/memories/f", "aaa\n", "aa", "b")).toEqual({
      ok: false,
      error:
        "No replacement was performed. Multiple occurrences of old_str `aa` in lines: 1. Please ensure it is unique",
    });
  });

  it("lists the lines of several occurrences once each, ascending", () => {
    expect(strReplace("/memories/f", "x x\ny\nx\n", "x", "z")).toEqual({
      ok: false,
      error:
        "No replacement was performed. Multiple occurrences of old_str `x` in lines: 1, 3. Please ensure it is unique",
    });
  });

  it("reports a missing string", () => {
    expect(strReplace("/memories/f", "abc", "zz", "y")).toEqual({
      ok: false,
      error: "No replacement was performed, old_str `zz` did not appear verbatim in /memories/f.",
    });
  });

  it("replaces literally", () => {
    expect(strReplace("/memories/f", "a-b", "-", "$&$1$$")).toMatchObject({ ok: true, text: "a$&$1$$b" });
  });

  it("shows four lines around the change, clamped", () => {
    const text = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join("\n") + "\n";
    const out = strReplace("/memories/f", text, "l10\n", "A\nB\n");
    const lines = ["l6", "l7", "l8", "l9", "A", "B", "l11", "l12", "l13", "l14"];
    const numbered = lines.map((l, i) => `${String(i + 6).padStart(6)}\t${l}`).join("\n");
    const changed = { start: text.indexOf("l10"), end: text.indexOf("l10") + 4 };
    const expected = {
      ok: true,
      text: text.replace("l10\n", "A\nB\n"),
      reply: `${HEAD}\n${numbered}`,
      changed,
    };
    expect(out).toEqual(expected);
    expect(strReplace("/memories/f", "a\nb\n", "a", "c")).toMatchObject({
      reply: `${HEAD}\n     1\tc\n     2\tb`,
    });
  });

  it("counts the line where old_str began as touched when new_str is empty", () => {
    const text = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    const out = strReplace("/memories/f", text, "6\n", "");
    const expected = [2, 3, 4, 5, 7, 8, 9, 10].map((v, i) => `${String(i + 2).padStart(6)}\t${v}`).join("\n");
    expect(out).toMatchObject({ ok: true, reply: `${HEAD}\n${expected}` });
  });

  it("changes exactly the one occurrence", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.string(), fc.string(), (a, old, b, next) => {
        const text = a + old + b;
        const result = strReplace("/memories/f", text, old, next);
        if (occurrences(text, old).length === 1)
          expect(result).toMatchObject({ ok: true, text: a + next + b });
        else expect(result.ok).toBe(false);
      }),
    );
  });
});
