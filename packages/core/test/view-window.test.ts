import { afterEach, describe, expect, it } from "vitest";
import { executeCommand } from "../src/execute.js";
import { InMemoryStore } from "../src/memory-store.js";
import { msg } from "../src/messages.js";

// Counts the work a view does outside the window: bytes decoded to text and per-line `indexOf` calls.
const counters = { decodedBytes: 0, indexOfCalls: 0 };
const decode = TextDecoder.prototype.decode;
const indexOf = String.prototype.indexOf;
const instrument = () => {
  counters.decodedBytes = 0;
  counters.indexOfCalls = 0;
  TextDecoder.prototype.decode = function (this: unknown, ...args: Parameters<typeof decode>) {
    counters.decodedBytes += args[0]?.byteLength ?? 0;
    return decode.apply(this, args);
  };
  String.prototype.indexOf = function (this: string, search: string, position?: number) {
    counters.indexOfCalls++;
    return indexOf.call(this, search, position);
  };
};
afterEach(() => {
  TextDecoder.prototype.decode = decode;
  String.prototype.indexOf = indexOf;
});

describe("a view_range costs its window", () => {
  it("decodes only the window's bytes and walks only the window's lines", async () => {
    const lines = 20_000;
    const text = `${Array.from({ length: lines }, (_, i) => `line ${i + 1} of the log`).join("\n")}\n`;
    const store = new InMemoryStore();
    const path = "/memories/long.log";
    const options = { maxFileBytes: 4 * 1024 * 1024 };
    expect((await executeCommand(store, { command: "create", path, file_text: text }, options)).isError).toBe(
      false,
    );

    instrument();
    const result = await executeCommand(
      store,
      { command: "view", path, view_range: [15_001, 15_100] },
      options,
    );
    const counted = { ...counters };
    TextDecoder.prototype.decode = decode;
    String.prototype.indexOf = indexOf;

    expect(result.isError).toBe(false);
    expect(result.content.split("\n")).toHaveLength(101);
    expect(result.content).toContain("15001\tline 15001 of the log\n");
    expect(result.content.endsWith("15100\tline 15100 of the log")).toBe(true);
    const windowBytes = text.split("\n").slice(15_000, 15_100).join("\n").length;
    // A whole-file decode would be 20x this; a line walk from the top 15,000 calls.
    expect(counted.decodedBytes).toBe(windowBytes);
    expect(counted.indexOfCalls).toBeLessThanOrEqual(100 + 20);
  });

  it("still refuses bytes that are not UTF-8 anywhere in the file, outside the window too", async () => {
    const store = new InMemoryStore();
    const bytes = new TextEncoder().encode("a\nb\nc\n");
    const bad = new Uint8Array([...bytes, 0xff, 0x0a]);
    await store.write("/memories/bad.txt", bad, { ifAbsent: true });
    const result = await executeCommand(store, {
      command: "view",
      path: "/memories/bad.txt",
      view_range: [1, 2],
    });
    expect(result).toEqual({ content: msg.notUtf8("/memories/bad.txt"), isError: true });
  });
});
