import { executeCommand, executeSearch, InMemoryStore, memorySearchInputSchema } from "@mem/core";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { createMemoryMcpServer, type MemoryMcpServerOptions } from "../src/index.js";
import { newClient } from "./helpers/mcp-client.js";

async function connect(store: InMemoryStore, options?: MemoryMcpServerOptions) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMemoryMcpServer(store, options).connect(serverSide);
  const client = newClient();
  await client.connect(clientSide);
  return client;
}

describe("memory_search over MCP", () => {
  it("is a second tool with SPEC §9's definition, only when asked for", async () => {
    expect((await (await connect(new InMemoryStore())).listTools()).tools.map((t) => t.name)).toEqual([
      "memory",
    ]);
    const { tools } = await (await connect(new InMemoryStore(), { search: true })).listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["memory", "memory_search"]);
    expect(tools[1]).toMatchObject({
      description:
        "Search the text of your memory files. Returns matching lines as path:line: text, in path order.",
      inputSchema: memorySearchInputSchema(),
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
    expect(() => createMemoryMcpServer(new InMemoryStore(), { search: "yes" as never })).toThrow(
      "search must be true or false",
    );
  });

  it("answers exactly what executeSearch answers, on a read-only server too", async () => {
    const store = new InMemoryStore();
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "Tea\nmore tea\n" });
    const client = await connect(store, { search: true, readOnly: true, viewCharLimit: 20 });
    for (const input of [
      { query: "tea" },
      { query: "" },
      { query: "(", regex: true },
      { query: "x", path: "/nope" },
    ]) {
      const expected = await executeSearch(store, input, { viewCharLimit: 20 });
      const result = await client.callTool({ name: "memory_search", arguments: input });
      expect(result).toEqual({
        content: [{ type: "text", text: expected.content }],
        isError: expected.isError,
      });
    }
    const other = await client.callTool({ name: "bash", arguments: {} });
    expect(other.content).toEqual([
      { type: "text", text: "Error: Unknown tool `bash`. The tools here are `memory` and `memory_search`" },
    ]);
    // Without search, memory_search is an unknown tool like any other.
    const plain = await connect(store);
    expect((await plain.callTool({ name: "memory_search", arguments: { query: "tea" } })).content).toEqual([
      { type: "text", text: "Error: Unknown tool `memory_search`. The only tool here is `memory`" },
    ]);
  });
});
