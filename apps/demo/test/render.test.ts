import { describe, expect, it } from "vitest";
import { clip, createStyle, describeCall, renderTree, useColor } from "../src/render.js";

const plain = createStyle(false);

describe("colours", () => {
  it("are on for a terminal only, and off whenever NO_COLOR is set or TERM is dumb", () => {
    const terminal = { isTTY: true };
    expect(useColor(terminal, {})).toBe(true);
    expect(useColor(terminal, { NO_COLOR: "1" })).toBe(false);
    expect(useColor(terminal, { NO_COLOR: "" })).toBe(true);
    expect(useColor(terminal, { TERM: "dumb" })).toBe(false);
    expect(useColor({}, {})).toBe(false);
  });

  it("are plain ANSI styles, and nothing at all when off", () => {
    expect(createStyle(true).red("x")).toBe("\u001b[31mx\u001b[39m");
    expect(plain.red("x")).toBe("x");
  });
});

describe("describeCall", () => {
  it("says what each command does in one line", () => {
    expect(describeCall({ command: "view", path: "/memories" }, plain)).toBe("view /memories");
    expect(describeCall({ command: "view", path: "/memories/a", view_range: [1, 5] }, plain)).toBe(
      "view /memories/a lines [1,5]",
    );
    expect(describeCall({ command: "create", path: "/memories/a", file_text: "héllo" }, plain)).toBe(
      "create /memories/a (6 bytes)",
    );
    expect(
      describeCall(
        { command: "str_replace", path: "/memories/a", old_str: "x".repeat(50), new_str: "y" },
        plain,
      ),
    ).toBe(`str_replace /memories/a "${"x".repeat(39)}…" → "y"`);
    expect(
      describeCall({ command: "insert", path: "/memories/a", insert_line: 0, insert_text: "z\n" }, plain),
    ).toBe("insert /memories/a at the top (2 bytes)");
    expect(
      describeCall({ command: "insert", path: "/memories/a", insert_line: 3, insert_text: "z" }, plain),
    ).toBe("insert /memories/a after line 3 (1 byte)");
    expect(describeCall({ command: "rename", old_path: "/memories/a", new_path: "/memories/b" }, plain)).toBe(
      "rename /memories/a → /memories/b",
    );
    expect(describeCall({ command: "delete", path: "/memories/a" }, plain)).toBe("delete /memories/a");
    expect(describeCall({ command: "shred" }, plain)).toBe('shred {"command":"shred"}');
  });
});

describe("renderTree", () => {
  it("shows directories, files with sizes, and their content", () => {
    const tree = renderTree(
      [
        { path: "/memories/a.md", size: 2, content: "A\n" },
        { path: "/memories/notes/b.md", size: 4, content: "B\nC\n" },
        { path: "/memories/notes/deep/c.md", size: 0, content: "" },
      ],
      plain,
    );
    expect(tree).toBe(
      [
        "/memories  3 files, 6 bytes",
        "  a.md  2 bytes",
        "  │ A",
        "  notes/",
        "    b.md  4 bytes",
        "    │ B",
        "    │ C",
        "    deep/",
        "      c.md  0 bytes",
      ].join("\n"),
    );
  });

  it("says when memory is empty", () => {
    expect(renderTree([], plain)).toBe("/memories  0 files, 0 bytes\n  (empty)");
  });

  it("clips long content", () => {
    expect(clip("1\n2\n3\n4", 2)).toBe("1\n2\n… 2 more lines");
    expect(clip("1\n2", 2)).toBe("1\n2");
  });
});
