import { executeCommand, StoreFailureError } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Hosted, requestsOf, startHosted } from "./helpers.js";

let hosted: Hosted;
beforeAll(async () => {
  hosted = await startHosted();
});
afterAll(() => hosted.server.close());

const deep = (n: number) => `/memories/${Array.from({ length: n }, (_, i) => `d${i}`).join("/")}`;

describe("hosted limits, refused before any request", () => {
  const refusedWithoutRequest = async (input: Record<string, unknown>, prefix?: string) => {
    const store = hosted.store(prefix === undefined ? {} : { prefix });
    let content = "";
    const routes = await requestsOf(hosted.server, async () => {
      const result = await executeCommand(store, input);
      expect(result.isError).toBe(true);
      content = result.content;
    });
    expect(routes).toEqual([]);
    return content;
  };

  it("content over 102,400 bytes is SPEC's size error with the hosted limit", async () => {
    expect(
      await refusedWithoutRequest({
        command: "create",
        path: "/memories/big",
        file_text: "x".repeat(102_401),
      }),
    ).toBe("Error: File /memories/big would be 102401 bytes, which exceeds the limit of 102400 bytes");
    const store = hosted.store();
    const ok = await executeCommand(store, {
      command: "create",
      path: "/memories/big",
      file_text: "x".repeat(102_400),
    });
    expect(ok.isError).toBe(false);
    const grown = await executeCommand(store, {
      command: "insert",
      path: "/memories/big",
      insert_line: 0,
      insert_text: "y",
    });
    expect(grown.content).toBe(
      "Error: File /memories/big would be 102402 bytes, which exceeds the limit of 102400 bytes",
    );
  });

  it("paths deeper than the API's 20 segments, less what the prefix takes", async () => {
    expect(await refusedWithoutRequest({ command: "create", path: deep(21), file_text: "" })).toBe(
      `Error: The path ${deep(21)} is not allowed: it is more than 20 levels deep`,
    );
    expect(await refusedWithoutRequest({ command: "create", path: deep(19), file_text: "" }, "/team/a")).toBe(
      `Error: The path ${deep(19)} is not allowed: it is more than 18 levels deep`,
    );
    const store = hosted.store();
    expect((await executeCommand(store, { command: "create", path: deep(20), file_text: "" })).isError).toBe(
      false,
    );
    expect(
      await refusedWithoutRequest({ command: "rename", old_path: "/memories/a", new_path: deep(21) }),
    ).toContain("is more than 20 levels deep");
    // A tenant's prefix takes two segments.
    const tenant = hosted.store().scope("t1");
    expect(tenant.pathLimits.maxDepth).toBe(18);
  });

  it("names holding format characters or line and paragraph separators", async () => {
    for (const ch of ["\u200b", "\u200e", "\ufeff", "\u2028", "\u2029", "\u{e0001}"]) {
      expect(
        await refusedWithoutRequest({ command: "create", path: `/memories/a${ch}b`, file_text: "" }),
      ).toBe(
        `Error: The path /memories/a${ch}b is not allowed: it contains a character this memory cannot store`,
      );
    }
  });

  it("stores NFC paths and keeps letter case apart", async () => {
    const store = hosted.store();
    const decomposed = "/memories/Caf\u0065\u0301";
    expect(
      (await executeCommand(store, { command: "create", path: decomposed, file_text: "nfc" })).content,
    ).toBe("File created successfully at: /memories/Caf\u00e9");
    expect(hosted.server.model.store(store.memoryStoreId).paths.has("/Caf\u00e9")).toBe(true);
    expect(
      (await executeCommand(store, { command: "create", path: "/memories/caf\u00e9", file_text: "lower" }))
        .isError,
    ).toBe(false);
    const view = await executeCommand(store, { command: "view", path: "/memories/caf\u00e9" });
    expect(view.content).toBe("Here's the content of /memories/caf\u00e9 with line numbers:\n     1\tlower");
  });

  it("images and other non-UTF-8 bytes cannot be stored: a clear error, nothing written", async () => {
    const store = hosted.store();
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff]);
    const routes = await requestsOf(hosted.server, async () => {
      const refused = await store.write("/memories/i.png", png, { ifAbsent: true }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StoreFailureError);
      expect((refused as StoreFailureError).reason).toBe(
        "a hosted memory store holds UTF-8 text only; this file is not UTF-8 text",
      );
    });
    expect(routes).toEqual([]);
  });

  it("refuses bad options with a TypeError naming the option", async () => {
    const { AnthropicMemoryStore } = await import("../src/index.js");
    const client = hosted.client();
    expect(() => new AnthropicMemoryStore({ client, memoryStoreId: "" })).toThrow(/memoryStoreId/);
    expect(() => new AnthropicMemoryStore({ client, memoryStoreId: "memstore_1", prefix: "team/" })).toThrow(
      /prefix/,
    );
    expect(() => new AnthropicMemoryStore({ client, memoryStoreId: "memstore_1", attempts: 0 })).toThrow(
      /attempts/,
    );
    expect(() => new AnthropicMemoryStore({ client: {} as never, memoryStoreId: "memstore_1" })).toThrow(
      /client/,
    );
  });
});

describe("limits through wrappers", () => {
  it("a HistoryStore around the hosted store keeps its limits", async () => {
    const { HistoryStore } = await import("@mem/history");
    const wrapped = new HistoryStore(hosted.store());
    expect(wrapped.pathLimits?.maxDepth).toBe(20);
    expect(wrapped.maxFileBytes).toBe(102_400);
    const result = await executeCommand(wrapped, { command: "create", path: deep(21), file_text: "" });
    expect(result.content).toBe(`Error: The path ${deep(21)} is not allowed: it is more than 20 levels deep`);
  });
});
