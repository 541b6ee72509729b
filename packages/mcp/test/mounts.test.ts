import { InMemoryStore, MEMORY_SYSTEM_PROMPT, MEMORY_TOOL_DESCRIPTION, mountStores } from "@mem/core";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { callMemoryTool, createMemoryMcpServer, MEMORY_PROTOCOL_PROMPT } from "../src/index.js";
import { newClient } from "./helpers/mcp-client.js";

const MOUNTS = `Your memory directory is made of these memories:
- /memories (read-write)
- /memories/team (read-only): The team's playbook: read it first.`;

describe("a store made of mounts over MCP", () => {
  it("shows the mounts and their access in the tool's description and the protocol prompt, and refuses writes to a read-only mount", async () => {
    const team = new InMemoryStore();
    const memory = mountStores({
      "/memories": { store: new InMemoryStore() },
      "/memories/team": {
        store: team,
        access: "read_only",
        instructions: "The team's playbook: read it first.",
      },
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMemoryMcpServer(memory).connect(serverSide);
    const client = newClient();
    await client.connect(clientSide);

    const { tools } = await client.listTools();
    expect(tools[0]?.description).toBe(`${MEMORY_TOOL_DESCRIPTION}\n\n${MOUNTS}`);
    const prompt = await client.getPrompt({ name: MEMORY_PROTOCOL_PROMPT });
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: `${MEMORY_SYSTEM_PROMPT}\n${MOUNTS}` });
    const refused = await callMemoryTool(client, {
      command: "create",
      path: "/memories/team/x.md",
      file_text: "x",
    });
    expect(refused).toEqual({
      isError: true,
      content:
        "Error: The path /memories/team/x.md is read-only: it is in the read-only memory mounted at /memories/team",
    });
    expect(await team.list("/memories", 2)).toEqual({ size: 0, entries: [] });
    await client.close();
  });

  it("describes a plain store as before", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMemoryMcpServer(new InMemoryStore()).connect(serverSide);
    const client = newClient();
    await client.connect(clientSide);
    expect((await client.listTools()).tools[0]?.description).toBe(MEMORY_TOOL_DESCRIPTION);
    await client.close();
  });
});
