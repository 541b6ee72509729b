import { afterEach, describe, expect, it, vi } from "vitest";
import { executeCommand, InMemoryStore } from "../src/index.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("oversized text", () => {
  it("is measured and refused without being encoded (100 MB of file_text)", async () => {
    const store = new InMemoryStore();
    const encode = vi.spyOn(TextEncoder.prototype, "encode");
    const text = "é".repeat(50 * 1024 * 1024);
    const result = await executeCommand(store, { command: "create", path: "/memories/big", file_text: text });
    expect(result).toEqual({
      content: `Error: File /memories/big would be ${100 * 1024 * 1024} bytes, which exceeds the limit of 1048576 bytes`,
      isError: true,
    });
    expect(encode).not.toHaveBeenCalled();
    expect(await store.stat("/memories/big")).toBeNull();
  });

  it("refuses an edit whose result is too large without encoding that result", async () => {
    const store = new InMemoryStore();
    await executeCommand(store, { command: "create", path: "/memories/f", file_text: "x\n" });
    const encode = vi.spyOn(TextEncoder.prototype, "encode");
    const result = await executeCommand(store, {
      command: "str_replace",
      path: "/memories/f",
      old_str: "x",
      new_str: "y".repeat(2 * 1024 * 1024),
    });
    expect(result.content).toBe(
      `Error: File /memories/f would be ${2 * 1024 * 1024 + 1} bytes, which exceeds the limit of 1048576 bytes`,
    );
    expect(encode).not.toHaveBeenCalled();
  });

  it("still encodes text within the limit once, to store it", async () => {
    const store = new InMemoryStore();
    const encode = vi.spyOn(TextEncoder.prototype, "encode");
    await executeCommand(store, { command: "create", path: "/memories/ok", file_text: "fits\n" });
    expect(encode).toHaveBeenCalledTimes(1);
  });
});
