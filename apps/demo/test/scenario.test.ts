import { executeCommand, executeSearch, InMemoryStore } from "@mem/core";
import type { Conversation, Message } from "@mem/testkit";
import { describe, expect, it } from "vitest";
import { listedFiles, numberedText, SESSIONS, scriptedClaude } from "../src/scenario.js";

/** A memory holding `files`, and what the engine answers to views of it. */
const memoryWith = async (files: Record<string, string>) => {
  const store = new InMemoryStore();
  for (const [path, file_text] of Object.entries(files)) {
    await executeCommand(store, { command: "create", path, file_text });
  }
  const view = async (path: string) => (await executeCommand(store, { command: "view", path })).content;
  return Object.assign(view, {
    search: async (query: string) => (await executeSearch(store, { query })).content,
  });
};

/** A conversation of one session in which each memory call got the given result. */
const conversation = (
  session: number,
  calls: [Record<string, unknown>, string, boolean?][],
): Conversation => {
  const messages: Message[] = [{ role: "user", content: SESSIONS[session]?.prompt ?? "" }];
  calls.forEach(([input, result, isError], i) => {
    const name = "query" in input ? "memory_search" : "memory";
    messages.push({ role: "assistant", content: [{ type: "tool_use", id: `t${i}`, name, input }] });
    messages.push({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: `t${i}`, content: result, ...(isError && { is_error: true }) },
      ],
    });
  });
  return { system: "", tools: [], messages };
};

const toolUses = (blocks: ReturnType<typeof scriptedClaude>) => blocks.filter((b) => b.type === "tool_use");

describe("the scripted Claude", () => {
  it("views its memory directory before anything else, in both sessions", () => {
    for (const session of [0, 1]) {
      expect(toolUses(scriptedClaude(conversation(session, [])))).toEqual([
        { type: "tool_use", name: "memory", input: { command: "view", path: "/memories" } },
      ]);
    }
  });

  it("admits in session 2 that an empty memory holds no earlier work", async () => {
    const view = await memoryWith({});
    const reply = scriptedClaude(
      conversation(1, [[{ command: "view", path: "/memories" }, await view("/memories")]]),
    );
    expect(toolUses(reply)).toEqual([]);
    expect(reply[0]).toMatchObject({ text: expect.stringContaining("no record of our earlier work") });
  });

  it("reads whichever file its memory lists, and edits the status line it actually read", async () => {
    const view = await memoryWith({ "/memories/elsewhere/n.md": "## Status\nHalf done.\n" });
    const listing = await view("/memories");
    const lookup = scriptedClaude(conversation(1, [[{ command: "view", path: "/memories" }, listing]]));
    expect(toolUses(lookup)).toEqual([
      { type: "tool_use", name: "memory_search", input: { query: "fetch_page" } },
    ]);
    // Nothing about fetch_page: it reads the file its memory lists.
    const searched = await view.search("fetch_page");
    expect(searched).toBe('No matches for "fetch_page" in /memories.');
    const read = scriptedClaude(
      conversation(1, [
        [{ command: "view", path: "/memories" }, listing],
        [{ query: "fetch_page" }, searched],
      ]),
    );
    expect(toolUses(read)[0]).toMatchObject({ input: { command: "view", path: "/memories/elsewhere/n.md" } });

    const notes = await view("/memories/elsewhere/n.md");
    const edit = scriptedClaude(
      conversation(1, [
        [{ command: "view", path: "/memories" }, listing],
        [{ query: "fetch_page" }, searched],
        [{ command: "view", path: "/memories/elsewhere/n.md" }, notes],
      ]),
    );
    expect(toolUses(edit)[0]).toMatchObject({
      input: { command: "str_replace", path: "/memories/elsewhere/n.md", old_str: "Half done." },
    });
  });

  it("stops with the error text when its memory tool fails", async () => {
    const view = await memoryWith({});
    const reply = scriptedClaude(
      conversation(0, [
        [{ command: "view", path: "/memories" }, await view("/memories")],
        [
          { command: "create", path: "/memories/x" },
          "Error: create failed for /memories/x: connection refused",
          true,
        ],
      ]),
    );
    expect(toolUses(reply)).toEqual([]);
    expect(reply[0]).toMatchObject({ text: expect.stringContaining("connection refused") });
  });
});

describe("reading tool results", () => {
  it("finds the files of a directory view", async () => {
    const view = await memoryWith({
      "/memories/a.md": "a\n",
      "/memories/d/b.md": "b\n",
      "/memories/d/e/c.md": "c\n",
    });
    expect(listedFiles(await view("/memories"))).toEqual(["/memories/a.md", "/memories/d/b.md"]);
    expect(listedFiles(await (await memoryWith({}))("/memories"))).toEqual([]);
  });

  it("strips the header and line numbers of a file view", async () => {
    const view = await memoryWith({ "/memories/a": "x\n\ty\n" });
    expect(numberedText(await view("/memories/a"))).toBe("x\n\ty");
  });
});
