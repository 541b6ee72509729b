import { describe, expect, it } from "vitest";
import {
  type ChangeEvent,
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  type MemoryChange,
} from "../src/index.js";

describe("onChange", () => {
  it("reports each successful change with its sizes, and nothing for failures or views", async () => {
    const store = new InMemoryStore();
    const events: ChangeEvent[] = [];
    const onChange = (event: ChangeEvent) => {
      events.push(event);
    };
    const before = Date.now();
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
    for (const event of events) expect(event.time).toBeGreaterThanOrEqual(before);
    expect(events.map(({ time: _time, ...event }) => event)).toEqual([
      { command: "create", path: "/memories/a.md", sizeBefore: null, sizeAfter: 4, bytes: 4 },
      { command: "str_replace", path: "/memories/a.md", sizeBefore: 4, sizeAfter: 6, bytes: 6 },
      { command: "insert", path: "/memories/a.md", sizeBefore: 6, sizeAfter: 11, bytes: 11 },
      { command: "rename", path: "/memories/a.md", newPath: "/memories/d/b.md", bytes: 0 },
      { command: "delete", path: "/memories/d", sizeAfter: null, bytes: 0 },
    ]);
  });

  it("names the actor and tenant of each change, and hands the store the command and actor", async () => {
    const contexts: unknown[] = [];
    class Watched extends ForwardingStore {
      override write(...args: Parameters<ForwardingStore["write"]>) {
        contexts.push(args[3]);
        return super.write(...args);
      }
      override delete(...args: Parameters<ForwardingStore["delete"]>) {
        contexts.push(args[1]);
        return super.delete(...args);
      }
      override rename(...args: Parameters<ForwardingStore["rename"]>) {
        contexts.push(args[2]);
        return super.rename(...args);
      }
    }
    const store = new Watched(new InMemoryStore());
    const events: MemoryChange[] = [];
    const options = { actor: "agent-7", tenant: "acme", onChange: (e: MemoryChange) => void events.push(e) };
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "one\n" }, options);
    await executeCommand(
      store,
      { command: "insert", path: "/memories/a.md", insert_line: 1, insert_text: "two" },
      options,
    );
    await executeCommand(
      store,
      { command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" },
      options,
    );
    await executeCommand(
      store,
      { command: "delete", path: "/memories/b.md" },
      { onChange: options.onChange },
    );
    expect(events.map((e) => [e.command, e.actor, e.tenant])).toEqual([
      ["create", "agent-7", "acme"],
      ["insert", "agent-7", "acme"],
      ["rename", "agent-7", "acme"],
      ["delete", undefined, undefined],
    ]);
    expect(contexts).toEqual([
      { command: "create", actor: "agent-7" },
      { command: "insert", actor: "agent-7" },
      { command: "rename", actor: "agent-7" },
      { command: "delete", actor: undefined },
    ]);
  });

  it("refuses an actor that is not a short printable name, before anything is read or written", async () => {
    const store = new InMemoryStore();
    for (const actor of ["", "a\nb", "x".repeat(129), 7]) {
      await expect(
        executeCommand(store, { command: "create", path: "/memories/a", file_text: "" }, { actor } as never),
      ).rejects.toThrow(/^actor must be/);
    }
    expect(await store.stat("/memories/a")).toBeNull();
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
