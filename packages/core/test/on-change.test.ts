import { describe, expect, it } from "vitest";
import { type ChangeEvent, executeCommand, InMemoryStore } from "../src/index.js";

describe("onChange", () => {
  it("reports each successful change with its sizes, and nothing for failures or views", async () => {
    const store = new InMemoryStore();
    const events: ChangeEvent[] = [];
    const onChange = (event: ChangeEvent) => {
      events.push(event);
    };
    const run = (input: object) => executeCommand(store, input, { onChange });
    await run({ command: "create", path: "/memories/a.md", file_text: "one\n" });
    await run({ command: "str_replace", path: "/memories/a.md", old_str: "one", new_str: "three" });
    await run({ command: "insert", path: "/memories/a.md", insert_line: 0, insert_text: "zero" });
    await run({ command: "view", path: "/memories/a.md" });
    await run({ command: "create", path: "/memories/a.md", file_text: "again" });
    await run({ command: "str_replace", path: "/memories/a.md", old_str: "missing", new_str: "x" });
    await run({ command: "rename", old_path: "/memories/a.md", new_path: "/memories/d/b.md" });
    await run({ command: "delete", path: "/memories/d" });
    await run({ command: "delete", path: "/memories/d" });
    expect(events).toEqual([
      { command: "create", path: "/memories/a.md", sizeBefore: null, sizeAfter: 4 },
      { command: "str_replace", path: "/memories/a.md", sizeBefore: 4, sizeAfter: 6 },
      { command: "insert", path: "/memories/a.md", sizeBefore: 6, sizeAfter: 11 },
      { command: "rename", path: "/memories/a.md", newPath: "/memories/d/b.md" },
      { command: "delete", path: "/memories/d", sizeAfter: null },
    ]);
  });

  it("never lets a throwing, rejecting or slow hook change or delay the result", async () => {
    const store = new InMemoryStore();
    const hooks = [
      () => {
        throw new Error("audit log down");
      },
      () => Promise.reject(new Error("audit log down")),
      () => new Promise<void>(() => {}),
    ];
    for (const [i, onChange] of hooks.entries()) {
      const result = await executeCommand(
        store,
        { command: "create", path: `/memories/${i}`, file_text: "x" },
        { onChange },
      );
      expect(result).toEqual({ content: `File created successfully at: /memories/${i}`, isError: false });
      expect(await store.stat(`/memories/${i}`)).toEqual({ kind: "file", size: 1 });
    }
  });

  it("reports no change when the guard refuses", async () => {
    const events: ChangeEvent[] = [];
    const result = await executeCommand(
      new InMemoryStore(),
      { command: "create", path: "/memories/k", file_text: `AK${"IA"}ABCDEFGHIJKLMNOP` },
      { onChange: (event) => void events.push(event) },
    );
    expect(result.isError).toBe(true);
    expect(events).toEqual([]);
  });
});
