import { ToolError } from "@anthropic-ai/sdk/lib/tools/ToolError";
import { describe, expect, it } from "vitest";
import { handleMemoryToolUse, MEMORY_SEARCH_TOOL_DEFINITION, searchTool } from "../src/anthropic/index.js";
import {
  executeCommand,
  executeSearch,
  InMemoryStore,
  type MemoryStore,
  StoreFailureError,
} from "../src/index.js";

const seed = async (files: Record<string, string>): Promise<InMemoryStore> => {
  const store = new InMemoryStore();
  for (const [path, file_text] of Object.entries(files)) {
    expect((await executeCommand(store, { command: "create", path, file_text })).isError).toBe(false);
  }
  return store;
};

describe("the memory_search tool (SPEC §9)", () => {
  it("is defined as SPEC §9 says", () => {
    expect(MEMORY_SEARCH_TOOL_DEFINITION.name).toBe("memory_search");
    expect(MEMORY_SEARCH_TOOL_DEFINITION.description).toBe(
      "Search the text of your memory files. Returns matching lines as path:line: text, in path order.",
    );
    const schema = MEMORY_SEARCH_TOOL_DEFINITION.input_schema;
    expect(schema.required).toEqual(["query"]);
    expect(Object.keys(schema.properties)).toEqual(["query", "path", "regex", "case_sensitive"]);
    expect(Object.values(schema.properties).map((p) => p.type)).toEqual([
      "string",
      "string",
      "boolean",
      "boolean",
    ]);
  });

  it("answers hits, no hits and the query JSON-quoted", async () => {
    const store = await seed({ "/memories/b.md": "Green tea\n", "/memories/a.md": 'x\n"tea" \\ here\n' });
    expect(await executeSearch(store, { query: "tea" })).toEqual({
      content:
        'Found 2 matching line(s) for "tea" in /memories:\n/memories/a.md:2: "tea" \\ here\n/memories/b.md:1: Green tea',
      isError: false,
    });
    expect(await executeSearch(store, { query: '"t\\', path: "/memories/b.md/" })).toEqual({
      content: 'No matches for "\\"t\\\\" in /memories/b.md.',
      isError: false,
    });
    expect((await executeSearch(store, { query: "^green", regex: true, case_sensitive: true })).content).toBe(
      'No matches for "^green" in /memories.',
    );
  });

  it("cuts a hit line to 200 characters followed by …", async () => {
    const long = `${"y".repeat(199)}\u{1F375}tail`;
    const store = await seed({ "/memories/a.md": `${"x".repeat(250)}\n${long}\n` });
    const { content } = await executeSearch(store, { query: "[xy]", regex: true });
    expect(content.split("\n")).toEqual([
      'Found 2 matching line(s) for "[xy]" in /memories:',
      `/memories/a.md:1: ${"x".repeat(200)}…`,
      `/memories/a.md:2: ${"y".repeat(199)}…`,
    ]);
  });

  it("keeps whole hit lines within the budget and counts the lines left out", async () => {
    const store = await seed({ "/memories/a.md": "hit\n".repeat(2000) });
    const { content } = await executeSearch(store, { query: "hit" });
    const lines = content.split("\n");
    expect(lines[0]).toBe('Found 2000 matching line(s) for "hit" in /memories:');
    const shown = lines.slice(1, -1);
    expect(shown.join("\n").length).toBeLessThanOrEqual(16_000);
    expect(shown.join("\n").length + `/memories/a.md:${shown.length + 1}: hit`.length + 1).toBeGreaterThan(
      16_000,
    );
    expect(shown.at(-1)).toBe(`/memories/a.md:${shown.length}: hit`);
    expect(lines.at(-1)).toBe(
      `... ${2000 - shown.length} more matching line(s) not shown. Narrow the search with a longer query or a path.`,
    );
    const small = await executeSearch(store, { query: "hit" }, { viewCharLimit: 43 });
    expect(small.content.split("\n")).toEqual([
      'Found 2000 matching line(s) for "hit" in /memories:',
      "/memories/a.md:1: hit",
      "/memories/a.md:2: hit",
      "... 1998 more matching line(s) not shown. Narrow the search with a longer query or a path.",
    ]);
  });

  it("ends with the stop line when the read budget cut the search short", async () => {
    const store = await seed({ "/memories/a.md": "tea", "/memories/b.md": "tea", "/memories/c.md": "tea" });
    expect((await executeSearch(store, { query: "tea" }, { maxFilesRead: 2 })).content).toBe(
      'Found 2 matching line(s) for "tea" in /memories:\n/memories/a.md:1: tea\n/memories/b.md:1: tea\n... search stopped after reading 2 files; narrow it with a path.',
    );
    expect((await executeSearch(store, { query: "zzz" }, { maxFilesRead: 1 })).content).toBe(
      'No matches for "zzz" in /memories.\n... search stopped after reading 1 files; narrow it with a path.',
    );
  });

  it("answers bad input with SPEC's error results, in order", async () => {
    const store = await seed({ "/memories/a.md": "tea" });
    const cases: [unknown, string][] = [
      [null, "Error: The memory_search tool input must be a JSON object"],
      [{}, "Error: Missing required parameter `query` for command `memory_search`"],
      [{ query: 1 }, "Error: Parameter `query` must be a string"],
      [{ query: "x", path: 3 }, "Error: Parameter `path` must be a string"],
      [{ query: "x", regex: "true" }, "Error: Parameter `regex` must be a boolean"],
      [{ query: "x", case_sensitive: 1 }, "Error: Parameter `case_sensitive` must be a boolean"],
      [{ query: "", path: "/etc" }, "Error: Parameter `query` must not be empty"],
      [{ query: "x".repeat(1001) }, "Error: Parameter `query` must be at most 1000 characters"],
      [
        { query: "x", path: "/etc/passwd" },
        "Error: The path /etc/passwd is outside the memory directory. All paths must start with /memories",
      ],
      [
        { query: "(", regex: true, path: "/memories/../a" },
        "Error: The path /memories/../a is not allowed: it contains a '.' or '..' segment",
      ],
      [{ query: "a(b", regex: true }, 'Error: Invalid regular expression "a(b": missing closing )'],
      [
        { query: "x*+", regex: true },
        'Error: Invalid regular expression "x*+": invalid nested repetition operator',
      ],
      [
        { query: "x", path: "/memories/none" },
        "The path /memories/none does not exist. Please provide a valid path.",
      ],
    ];
    for (const [input, content] of cases) {
      expect(await executeSearch(store, input)).toEqual({ content, isError: true });
    }
  });

  it("turns a storage failure into §5's error result", async () => {
    const store = await seed({ "/memories/a.md": "tea" });
    const failing: MemoryStore = Object.assign(Object.create(null), {
      read: () => Promise.reject(new StoreFailureError("connection refused")),
      stat: (path: string) => store.stat(path),
      list: (path: string, depth: number) => store.list(path, depth),
    });
    expect(await executeSearch(failing, { query: "tea" })).toEqual({
      content: "Error: search failed for /memories: connection refused",
      isError: true,
    });
  });
});

describe("searchTool and handleMemoryToolUse", () => {
  it("runs in the SDK's tool runner shape: text, or a ToolError for an error result", async () => {
    const store = await seed({ "/memories/a.md": "tea" });
    const tool = searchTool(store);
    expect(tool.name).toBe("memory_search");
    expect(tool.input_schema).toEqual(MEMORY_SEARCH_TOOL_DEFINITION.input_schema);
    expect(await tool.run(tool.parse({ query: "TEA" }))).toBe(
      'Found 1 matching line(s) for "TEA" in /memories:\n/memories/a.md:1: tea',
    );
    await expect(tool.run({ query: "" })).rejects.toBeInstanceOf(ToolError);
  });

  it("dispatches a memory_search block only when search is on", async () => {
    const store = await seed({ "/memories/a.md": "tea" });
    const block = { id: "toolu_9", name: "memory_search", input: { query: "tea" } };
    expect(await handleMemoryToolUse(block, store, { search: true })).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_9",
      content: 'Found 1 matching line(s) for "tea" in /memories:\n/memories/a.md:1: tea',
      is_error: false,
    });
    expect(
      (await handleMemoryToolUse({ ...block, input: { query: "" } }, store, { search: { maxFilesRead: 1 } }))
        .is_error,
    ).toBe(true);
    await expect(handleMemoryToolUse(block, store)).rejects.toThrow(
      'the tool_use block is for the tool "memory_search", not "memory"',
    );
    // The memory tool itself is unchanged with search on.
    const view = await handleMemoryToolUse(
      { id: "toolu_1", name: "memory", input: { command: "view", path: "/memories/a.md" } },
      store,
      { search: true },
    );
    expect(view.content).toBe("Here's the content of /memories/a.md with line numbers:\n     1\ttea");
  });
});
