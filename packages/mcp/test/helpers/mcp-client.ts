/** Real MCP clients for the tests. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

export const newClient = (): Client => new Client({ name: "mem-mcp-test", version: "0.0.0" });

/** A client connected to `url`, sending `token` as a bearer token when given. */
export async function httpClient(url: string, token?: string): Promise<Client> {
  const client = newClient();
  const requestInit: RequestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  return client;
}
