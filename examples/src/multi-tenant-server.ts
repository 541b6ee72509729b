/**
 * One memory per user behind one HTTP endpoint: the server maps each request's bearer token to a user
 * and runs the tool input on `store.scope(user)`, a complete `/memories` of that user's own over the same
 * store (and, for Redis, PostgreSQL or S3, the same connections). No result ever names the tenant, and
 * no path can leave it. Quotas apply per scope.
 *
 * The script starts the server on a free port, plays two users against it and stops it.
 * Run: npx -y pnpm@10 --filter @mem/examples multi-tenant-server
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { executeCommand, InMemoryStore } from "@mem/core";

// Any built-in store works the same way: new RedisStore({ url }), new PostgresStore({ pool }), ...
const store = new InMemoryStore();
// In a real server this is your authentication; tokens never reach the store or the results.
const users = new Map([
  ["token-of-alice", "alice"],
  ["token-of-bob", "bob"],
]);

const body = async (req: IncomingMessage): Promise<string> => {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text;
};

const server = createServer(async (req, res) => {
  const user = users.get(req.headers.authorization?.replace(/^Bearer /, "") ?? "");
  if (req.method !== "POST" || req.url !== "/memory" || user === undefined) {
    res.writeHead(user === undefined ? 401 : 404).end();
    return;
  }
  let input: unknown;
  try {
    input = JSON.parse(await body(req));
  } catch {
    input = null; // executeCommand answers malformed input with an error result
  }
  const result = await executeCommand(store.scope(user), input, { maxFiles: 100, maxTotalBytes: 1_000_000 });
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/memory`;

const call = async (token: string, input: object): Promise<void> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  const text = response.ok
    ? ((await response.json()) as { content: string }).content
    : `HTTP ${response.status}`;
  console.log(`${users.get(token) ?? "unknown"} ${JSON.stringify(input)}\n${text}\n`);
};

await call("token-of-alice", { command: "create", path: "/memories/notes.md", file_text: "alice's notes\n" });
await call("token-of-bob", { command: "view", path: "/memories" });
await call("token-of-bob", { command: "view", path: "/memories/notes.md" });
await call("token-of-alice", { command: "view", path: "/memories/notes.md" });
await call("token-of-mallory", { command: "view", path: "/memories" });

await new Promise((resolve) => server.close(resolve));
