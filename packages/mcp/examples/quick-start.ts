/**
 * Serves an in-memory store over streamable HTTP on a free loopback port, then uses it from the MCP SDK's
 * own client the way Claude Code or an IDE would: list the tool, create a file, view it.
 *
 * Run from packages/mcp:  npx tsx --conditions=@mem/source examples/quick-start.ts
 */
import { randomBytes } from "node:crypto";
import { InMemoryStore } from "@mem/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { callMemoryTool, serveHttp } from "../src/index.js";

const token = randomBytes(24).toString("base64url");
const server = await serveHttp(new InMemoryStore(), { port: 0, token });
console.log(`serving ${server.url}`);

const client = new Client({ name: "quick-start", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  }),
);
const { tools } = await client.listTools();
console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);

for (const input of [
  { command: "create", path: "/memories/project.md", file_text: "# Project\n- timeouts: raise to 30s\n" },
  { command: "view", path: "/memories/project.md" },
  { command: "view", path: "/etc/passwd" },
]) {
  const { content, isError } = await callMemoryTool(client, input);
  console.log(`\n> ${JSON.stringify(input)}\n${isError ? "[error] " : ""}${content}`);
}

await client.close();
await server.close();
