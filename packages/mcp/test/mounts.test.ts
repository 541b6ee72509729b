import { randomBytes } from "node:crypto";
import { InMemoryStore, MEMORY_SYSTEM_PROMPT, MEMORY_TOOL_DESCRIPTION, mountStores } from "@mem/core";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { callMemoryTool, createMemoryMcpServer, MEMORY_PROTOCOL_PROMPT, serveHttp } from "../src/index.js";
import { httpClient, newClient } from "./helpers/mcp-client.js";

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

  it("over HTTP with tenant tokens, each token's tenant gets its own per-tenant mount and shares the rest", async () => {
    const users = new InMemoryStore();
    const team = new InMemoryStore();
    await team.write("/memories/rules.md", new TextEncoder().encode("shared\n"), { ifAbsent: true });
    const table = mountStores({
      "/memories": { store: users, perTenant: true },
      "/memories/team": { store: team, access: "read_only" },
    });
    const alice = randomBytes(24).toString("base64url");
    const bob = randomBytes(24).toString("base64url");
    const server = await serveHttp(table, { port: 0, tenantFromToken: { [alice]: "alice", [bob]: "bob" } });
    try {
      const asAlice = await httpClient(server.url, alice);
      const asBob = await httpClient(server.url, bob);
      expect(
        await callMemoryTool(asAlice, { command: "create", path: "/memories/a.md", file_text: "A" }),
      ).toEqual({
        isError: false,
        content: "File created successfully at: /memories/a.md",
      });
      expect(await callMemoryTool(asBob, { command: "view", path: "/memories/a.md" })).toEqual({
        isError: true,
        content: "The path /memories/a.md does not exist. Please provide a valid path.",
      });
      expect(
        (await callMemoryTool(asBob, { command: "view", path: "/memories/team/rules.md" })).content,
      ).toContain("1\tshared");
      expect(await callMemoryTool(asBob, { command: "delete", path: "/memories/team/rules.md" })).toEqual({
        isError: true,
        content:
          "Error: The path /memories/team/rules.md is read-only: it is in the read-only memory mounted at /memories/team",
      });
      expect((await users.tenants()).tenants.map((t) => t.id)).toEqual(["alice"]);
      await Promise.all([asAlice.close(), asBob.close()]);
    } finally {
      await server.close();
    }
  });
});
