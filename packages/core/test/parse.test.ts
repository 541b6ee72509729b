import { describe, expect, it } from "vitest";
import { parseCommand } from "../src/parse.js";

const error = (input: unknown) => {
  const parsed = parseCommand(input);
  return parsed.ok ? null : parsed.error;
};

describe("parseCommand", () => {
  it.each([null, [], "view", 3, true])("refuses %j as input", (input) => {
    expect(error(input)).toBe("Error: The memory tool input must be a JSON object");
  });

  it.each([
    [{}, ""],
    [{ command: "list" }, "list"],
    [{ command: 7 }, "7"],
    [{ command: null }, ""],
    [{ command: "toString" }, "toString"],
  ])("refuses unknown command %j", (input, shown) => {
    expect(error(input)).toBe(
      `Error: Unknown command \`${shown}\`. Valid commands are: view, create, str_replace, insert, delete, rename`,
    );
  });

  it("checks parameters in order, then types", () => {
    expect(error({ command: "create" })).toBe(
      "Error: Missing required parameter `path` for command `create`",
    );
    expect(error({ command: "create", path: 1 })).toBe("Error: Parameter `path` must be a string");
    expect(error({ command: "create", path: "/etc" })).toBe(
      "Error: Missing required parameter `file_text` for command `create`",
    );
    expect(error({ command: "insert", path: "/m", insert_text: "x" })).toBe(
      "Error: Missing required parameter `insert_line` for command `insert`",
    );
    expect(error({ command: "insert", path: "/m", insert_line: 1.5, insert_text: 1 })).toBe(
      "Error: Parameter `insert_line` must be an integer",
    );
    expect(error({ command: "insert", path: "/m", insert_line: "1", insert_text: "x" })).toBe(
      "Error: Parameter `insert_line` must be an integer",
    );
    expect(error({ command: "rename", new_path: "/memories/x" })).toBe(
      "Error: Missing required parameter `old_path` for command `rename`",
    );
    expect(error({ command: "rename", old_path: "/memories/x", new_path: 3 })).toBe(
      "Error: Parameter `new_path` must be a string",
    );
  });

  it.each([
    [[1]],
    [[1, 2, 3]],
    [[1, "2"]],
    [[1.5, 2]],
    ["1,2"],
    [{ 0: 1, 1: 2 }],
  ])("refuses view_range %j", (range) => {
    expect(error({ command: "view", path: "/memories", view_range: range })).toBe(
      "Error: Parameter `view_range` must be a list of two integers",
    );
  });

  it("refuses empty old_str and text with lone surrogates", () => {
    expect(error({ command: "str_replace", path: "/memories/a", old_str: "" })).toBe(
      "Error: Parameter `old_str` must not be empty",
    );
    expect(error({ command: "create", path: "/memories/a", file_text: "a\ud800" })).toBe(
      "Error: Parameter `file_text` is not valid Unicode text",
    );
    expect(error({ command: "str_replace", path: "/memories/a", old_str: "x", new_str: "\udc00" })).toBe(
      "Error: Parameter `new_str` is not valid Unicode text",
    );
    expect(error({ command: "insert", path: "/memories/a", insert_line: 0, insert_text: "\ud83d" })).toBe(
      "Error: Parameter `insert_text` is not valid Unicode text",
    );
  });

  it("defaults new_str, ignores extra fields, treats null as absent", () => {
    expect(parseCommand({ command: "str_replace", path: "/memories/a", old_str: "x", extra: 1 })).toEqual({
      ok: true,
      command: { command: "str_replace", path: "/memories/a", old_str: "x", new_str: "" },
    });
    expect(parseCommand({ command: "view", path: "/memories", view_range: null })).toEqual({
      ok: true,
      command: { command: "view", path: "/memories" },
    });
    expect(error({ command: "create", path: "/memories/a", file_text: null })).toBe(
      "Error: Missing required parameter `file_text` for command `create`",
    );
  });
});
