import { describe, expect, it } from "vitest";
import {
  MEMORY_TOOL_DESCRIPTION,
  MEMORY_TOOL_READ_ONLY_DESCRIPTION,
  memoryToolInputSchema,
  readOnlyRefusal,
  unknownToolResult,
} from "../src/index.js";

describe("readOnlyRefusal", () => {
  it("refuses each command that changes memory, by name", () => {
    for (const command of ["create", "str_replace", "insert", "delete", "rename"]) {
      expect(readOnlyRefusal({ command })).toEqual({
        content: `Error: This memory is read-only: the \`${command}\` command is not available. Only \`view\` works here.`,
        isError: true,
      });
    }
  });

  it("lets view and anything the engine refuses by itself through", () => {
    for (const input of [
      { command: "view", path: "/memories" },
      { command: "CREATE" },
      { command: ["create"] },
      {},
      null,
      "create",
      ["create"],
    ]) {
      expect(readOnlyRefusal(input)).toBeNull();
    }
  });

  it("never throws on hostile input", () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("boom");
        },
      },
    );
    expect(readOnlyRefusal(hostile)).toBeNull();
  });
});

describe("the tool's description and schema", () => {
  it("names every command and parameter the schema lists", () => {
    const schema = memoryToolInputSchema();
    expect(schema.required).toEqual(["command"]);
    expect(schema.properties["command"]?.["enum"]).toEqual([
      "view",
      "create",
      "str_replace",
      "insert",
      "delete",
      "rename",
    ]);
    for (const name of Object.keys(schema.properties)) expect(MEMORY_TOOL_DESCRIPTION).toContain(name);
  });

  it("read-only: only view and its parameters", () => {
    const schema = memoryToolInputSchema({ readOnly: true });
    expect(Object.keys(schema.properties)).toEqual(["command", "path", "view_range"]);
    expect(schema.properties["command"]?.["enum"]).toEqual(["view"]);
    for (const name of ["create", "str_replace", "insert", "delete", "rename"]) {
      expect(MEMORY_TOOL_READ_ONLY_DESCRIPTION).not.toContain(name);
    }
  });

  it("answers a call to another tool with an error result", () => {
    expect(unknownToolResult("bash")).toEqual({
      content: "Error: Unknown tool `bash`. The only tool here is `memory`",
      isError: true,
    });
  });
});
