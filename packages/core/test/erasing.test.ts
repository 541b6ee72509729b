import { describe, expect, it } from "vitest";
import {
  ErasingError,
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  type WriteCondition,
} from "../src/index.js";

/** A store whose tenant is being purged: every change is refused with `ErasingError`, reads still work. */
class Erasing extends ForwardingStore {
  override async write(path: string, _data: Uint8Array, _condition: WriteCondition): Promise<never> {
    throw new ErasingError(path);
  }
  override async delete(path: string): Promise<never> {
    throw new ErasingError(path);
  }
  override async rename(from: string): Promise<never> {
    throw new ErasingError(from);
  }
}

describe("a write to a tenant being erased (SPEC §7)", () => {
  it("answers every write with the erasure error, changing nothing, and reads as usual", async () => {
    const inner = new InMemoryStore();
    await executeCommand(inner, { command: "create", path: "/memories/a.md", file_text: "one\n" });
    const store = new Erasing(inner);
    const unexpected: unknown[] = [];
    const erasing = { content: "Error: This memory is being erased; nothing was changed.", isError: true };
    for (const input of [
      { command: "create", path: "/memories/b.md", file_text: "x" },
      { command: "str_replace", path: "/memories/a.md", old_str: "one", new_str: "two" },
      { command: "insert", path: "/memories/a.md", insert_line: 0, insert_text: "zero" },
      { command: "delete", path: "/memories/a.md" },
      { command: "rename", old_path: "/memories/a.md", new_path: "/memories/c.md" },
    ]) {
      expect(await executeCommand(store, input, { onUnexpectedError: (e) => unexpected.push(e) })).toEqual(
        erasing,
      );
    }
    expect(unexpected).toEqual([]);
    expect((await executeCommand(store, { command: "view", path: "/memories/a.md" })).content).toContain(
      "one",
    );
  });
});
