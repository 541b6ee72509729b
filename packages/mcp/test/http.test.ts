import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { isObjectInput, loadGoldenTranscripts, objectInputsOnly, playTranscript } from "@mem/conformance";
import { ForwardingStore, InMemoryStore, type MemoryStore } from "@mem/core";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { callMemoryTool as callMemory, type HttpServerHandle, serveHttp } from "../src/index.js";
import { httpClient } from "./helpers/mcp-client.js";

const transcripts = loadGoldenTranscripts();
const newToken = (): string => randomBytes(24).toString("base64url");

const servers: HttpServerHandle[] = [];
const serve = async (...args: Parameters<typeof serveHttp>): Promise<HttpServerHandle> => {
  const server = await serveHttp(args[0], { port: 0, ...args[1] });
  servers.push(server);
  return server;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A raw HTTP POST, to see status codes and headers the SDK's client hides. */
const post = (
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> =>
  new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });

const listTools = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };

/** A store with tenants, each an InMemoryStore of its own (the built-in stores bring their own scope()). */
class TenantStore extends ForwardingStore {
  readonly scoped = new Map<string, InMemoryStore>();
  scope(tenant: string): MemoryStore {
    let store = this.scoped.get(tenant);
    if (!store) {
      store = new InMemoryStore();
      this.scoped.set(tenant, store);
    }
    return store;
  }
}

describe("streamable HTTP", () => {
  it("lists the memory tool with its input schema", async () => {
    const server = await serve(new InMemoryStore());
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await httpClient(server.url);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["memory"]);
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toEqual([
      "command",
      "path",
      "view_range",
      "file_text",
      "old_str",
      "new_str",
      "insert_line",
      "insert_text",
      "old_path",
      "new_path",
    ]);
    await client.close();
  });

  describe("golden transcripts, byte for byte", () => {
    for (const transcript of transcripts) {
      it(transcript.name, async () => {
        const store = new InMemoryStore();
        const server = await serve(store, transcript.options);
        const client = await httpClient(server.url);
        await playTranscript(store, objectInputsOnly(transcript), (input) =>
          callMemory(client, input as Record<string, unknown>),
        );
        await client.close();
      });
    }
  });

  it("refuses tool arguments that are not a JSON object with a protocol error, changing nothing", async () => {
    const store = new InMemoryStore();
    const server = await serve(store);
    const steps = transcripts.flatMap((t) => t.steps).filter((step) => !isObjectInput(step.input));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) {
      // These are error results in the transcripts too, so leaving them out of the MCP runs loses nothing.
      expect(step.isError).toBe(true);
      const call = {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "memory", arguments: step.input },
      };
      const reply = await post(server.url, call);
      // The SDK checks the request's shape before any handler runs and answers with a JSON-RPC error.
      const answer = JSON.parse(reply.text) as Record<string, unknown>;
      expect(answer).toMatchObject({ id: 2, error: { message: expect.stringContaining('"arguments"') } });
      expect(answer).not.toHaveProperty("result");
    }
    expect((await store.list("/memories", 2))?.entries).toEqual([]);
  });

  it("answers hostile input with the engine's error results and changes nothing", async () => {
    const store = new InMemoryStore();
    const server = await serve(store);
    const client = await httpClient(server.url);
    await callMemory(client, { command: "create", path: "/memories/a.md", file_text: "a\n" });
    const hostile: [Record<string, unknown>, string][] = [
      [{ command: "view", path: "/etc/passwd" }, "is outside the memory directory"],
      [{ command: "create", path: "/memories/../etc/x", file_text: "x" }, "'.' or '..' segment"],
      [{ command: "create", path: "/memories/%2e%2e/x", file_text: "x" }, "percent-encoded"],
      [{ command: "create", path: "/memories/a\u0000b", file_text: "x" }, "control character"],
      [{ command: "create", path: 42, file_text: "x" }, "Parameter `path` must be a string"],
      [{ command: "view", path: "/memories/a.md", view_range: "1-2" }, "must be a list of two integers"],
      [{ command: "insert", path: "/memories/a.md", insert_line: -1, insert_text: "x" }, "insert_line"],
      [{ command: "rm -rf", path: "/memories" }, "Unknown command `rm -rf`"],
      [{ command: { $gt: "" } }, 'Unknown command `{"$gt":""}`'],
      [{}, "Unknown command ``"],
    ];
    for (const [input, expected] of hostile) {
      const result = await callMemory(client, input);
      expect(result.isError, JSON.stringify(input)).toBe(true);
      expect(result.content).toContain(expected);
    }
    const unknownTool = await client.callTool({ name: "shell", arguments: { command: "ls" } });
    expect(unknownTool).toMatchObject({
      isError: true,
      content: [{ type: "text", text: expect.stringContaining("`memory`") }],
    });
    expect((await store.list("/memories", 2))?.entries.map((entry) => entry.path)).toEqual([
      "/memories/a.md",
    ]);
    expect(new TextDecoder().decode((await store.read("/memories/a.md"))?.data)).toBe("a\n");
    await client.close();
  });

  it("loses no update: 8 clients insert 10 lines each into one file at once", async () => {
    const store = new InMemoryStore();
    const server = await serve(store);
    const setup = await httpClient(server.url);
    await callMemory(setup, { command: "create", path: "/memories/log.md", file_text: "" });
    const clients = await Promise.all(Array.from({ length: 8 }, () => httpClient(server.url)));
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; i < 10; i++) {
          const result = await callMemory(client, {
            command: "insert",
            path: "/memories/log.md",
            insert_line: 0,
            insert_text: `client ${c} line ${i}\n`,
          });
          expect(result).toEqual({ content: "The file /memories/log.md has been edited.", isError: false });
        }
      }),
    );
    const text = new TextDecoder().decode((await store.read("/memories/log.md"))?.data);
    const lines = text.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(80);
    expect(new Set(lines).size).toBe(80);
    await Promise.all([setup, ...clients].map((client) => client.close()));
  });

  it("carries a 1 MiB file even when JSON escapes every character of it (6 MiB on the wire)", async () => {
    const store = new InMemoryStore();
    const server = await serve(store);
    const client = await httpClient(server.url);
    const text = "\u0001".repeat(1024 * 1024);
    expect(
      await callMemory(client, { command: "create", path: "/memories/big.bin", file_text: text }),
    ).toEqual({
      content: "File created successfully at: /memories/big.bin",
      isError: false,
    });
    expect((await store.read("/memories/big.bin"))?.data.length).toBe(1024 * 1024);
    await client.close();
  });

  describe("tokens", () => {
    it("refuses requests without the token or with a wrong one (401), serves the right one", async () => {
      const token = newToken();
      const server = await serve(new InMemoryStore(), { token });
      const missing = await post(server.url, listTools);
      expect(missing.status).toBe(401);
      expect(missing.headers["www-authenticate"]).toMatch(/^Bearer /);
      const wrong = await post(server.url, listTools, { authorization: `Bearer ${newToken()}` });
      expect(wrong.status).toBe(401);
      // The token with its last character changed (a random token may already end in "x").
      const almostToken = `${token.slice(0, -1)}${token.endsWith("x") ? "y" : "x"}`;
      const almost = await post(server.url, listTools, { authorization: `Bearer ${almostToken}` });
      expect(almost.status).toBe(401);
      expect(missing.text + wrong.text + almost.text).not.toContain(token);

      await expect(httpClient(server.url, newToken())).rejects.toThrow();
      const client = await httpClient(server.url, token);
      expect((await client.listTools()).tools).toHaveLength(1);
      await client.close();
    });

    it("refuses to start on a non-loopback address without a token", async () => {
      await expect(serveHttp(new InMemoryStore(), { host: "0.0.0.0", port: 0 })).rejects.toThrow(
        /token \(or tenantFromToken\) is required/,
      );
      const server = await serve(new InMemoryStore(), { host: "0.0.0.0", token: newToken() });
      expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
      const port = new URL(server.url).port;
      expect((await post(`http://127.0.0.1:${port}/mcp`, listTools)).status).toBe(401);
    });

    it("rejects bad options with a TypeError naming them, without echoing a token", async () => {
      const store = new InMemoryStore();
      await expect(serveHttp(store, { token: "short" })).rejects.toThrow(TypeError);
      await expect(serveHttp(store, { token: "short" })).rejects.toThrow(/^token must be/);
      await expect(serveHttp(store, { port: 70000 })).rejects.toThrow(/^port must be/);
      // A wrapper that does not forward scope(), as a user's store without tenants.
      const unscoped = new ForwardingStore(store);
      await expect(serveHttp(unscoped, { tenantFromToken: { [newToken()]: "a" } })).rejects.toThrow(
        /needs a store with scope/,
      );
      await expect(
        serveHttp(new TenantStore(store), { tenantFromToken: { [newToken()]: "../x" } }),
      ).rejects.toThrow(/^tenant must be/);
      const secret = `${newToken()} with a space`;
      await expect(serveHttp(store, { token: secret })).rejects.not.toThrow(secret);
      await expect(serveHttp(store, { readOnly: "yes" as unknown as boolean })).rejects.toThrow(
        /^readOnly must be true or false/,
      );
    });
  });

  it("refuses a Host header that is not loopback while bound to loopback (DNS rebinding)", async () => {
    const server = await serve(new InMemoryStore());
    const rebound = await post(server.url, listTools, { host: "attacker.example" });
    expect(rebound.status).toBe(403);
    expect((await post(server.url, listTools)).status).toBe(200);
  });

  it("takes the tenant from the token: each token sees only its own memory", async () => {
    const store = new TenantStore(new InMemoryStore());
    const alice = newToken();
    const bob = newToken();
    const server = await serve(store, {
      tenantFromToken: new Map([
        [alice, "alice"],
        [bob, "bob@example.com"],
      ]),
    });
    const asAlice = await httpClient(server.url, alice);
    const asBob = await httpClient(server.url, bob);
    expect(
      await callMemory(asAlice, { command: "create", path: "/memories/secret.md", file_text: "A\n" }),
    ).toEqual({
      content: "File created successfully at: /memories/secret.md",
      isError: false,
    });
    expect(await callMemory(asBob, { command: "view", path: "/memories/secret.md" })).toEqual({
      content: "The path /memories/secret.md does not exist. Please provide a valid path.",
      isError: true,
    });
    expect(
      await callMemory(asBob, { command: "create", path: "/memories/secret.md", file_text: "B\n" }),
    ).toMatchObject({
      isError: false,
    });
    expect((await callMemory(asAlice, { command: "view", path: "/memories/secret.md" })).content).toContain(
      "1\tA",
    );
    expect([...store.scoped.keys()].sort()).toEqual(["alice", "bob@example.com"]);
    expect(await store.inner.list("/memories", 2)).toMatchObject({ entries: [] });
    await expect(httpClient(server.url, newToken())).rejects.toThrow();
    await Promise.all([asAlice.close(), asBob.close()]);
  });

  it("answers GET with 405: the server is stateless and has no stream to offer", async () => {
    const server = await serve(new InMemoryStore());
    const reply = await fetch(server.url, { headers: { accept: "text/event-stream" } });
    expect(reply.status).toBe(405);
  });

  it("protocol errors of the SDK's client surface as McpError", async () => {
    const server = await serve(new InMemoryStore());
    const client = await httpClient(server.url);
    await expect(client.getPrompt({ name: "nope" })).rejects.toBeInstanceOf(McpError);
    await client.close();
  });
});
