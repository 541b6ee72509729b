import { InMemoryStore, MEMORY_TOOL_OVERWRITING_DESCRIPTION, type MemoryStore } from "@mem/core";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { callMemoryTool, createMemoryMcpServer, type MemoryMcpServerOptions } from "../src/index.js";
import { newClient } from "./helpers/mcp-client.js";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const DATA = Buffer.from(PNG).toString("base64");

async function connect(store: MemoryStore, options?: MemoryMcpServerOptions) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMemoryMcpServer(store, options).connect(serverSide);
  const client = newClient();
  await client.connect(clientSide);
  return client;
}

describe("image views over MCP", () => {
  it("reach the real client as the text and an image content item", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/p.png", PNG, { ifAbsent: true });
    const client = await connect(store);
    expect(
      await client.callTool({ name: "memory", arguments: { command: "view", path: "/memories/p.png" } }),
    ).toEqual({
      content: [
        { type: "text", text: "Here's the image /memories/p.png:" },
        { type: "image", data: DATA, mimeType: "image/png" },
      ],
      isError: false,
    });
    expect(await callMemoryTool(client, { command: "view", path: "/memories/p.png" })).toEqual({
      content: "Here's the image /memories/p.png: image/png, 12 bytes",
      isError: false,
      image: { mediaType: "image/png", data: DATA },
    });
  });

  it("applies maxImageBytes, and refuses an option of the wrong type", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/p.png", PNG, { ifAbsent: true });
    const client = await connect(store, { maxImageBytes: 4 });
    expect(await callMemoryTool(client, { command: "view", path: "/memories/p.png" })).toEqual({
      content: "Error: The image /memories/p.png is 12 bytes, which exceeds the limit of 4 bytes",
      isError: true,
    });
    expect(() => createMemoryMcpServer(store, { maxImageBytes: -1 })).toThrow(
      new TypeError("maxImageBytes must be a non-negative integer"),
    );
  });
});

describe("createOverwrites over MCP", () => {
  it("overwrites an existing file and describes create accordingly", async () => {
    const store = new InMemoryStore();
    const client = await connect(store, { createOverwrites: true });
    const { tools } = await client.listTools();
    expect(tools[0]?.description).toBe(MEMORY_TOOL_OVERWRITING_DESCRIPTION);
    for (const file_text of ["one\n", "two\n"]) {
      expect(await callMemoryTool(client, { command: "create", path: "/memories/a.md", file_text })).toEqual({
        content: "File created successfully at: /memories/a.md",
        isError: false,
      });
    }
    expect(new TextDecoder().decode((await store.read("/memories/a.md"))?.data)).toBe("two\n");
    expect(() =>
      createMemoryMcpServer(store, { createOverwrites: "yes" } as unknown as MemoryMcpServerOptions),
    ).toThrow(new TypeError("createOverwrites must be true or false"));
  });
});
