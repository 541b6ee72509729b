import {
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  MEMORY_SYSTEM_PROMPT,
  MEMORY_TOOL_DESCRIPTION,
  type MemoryStore,
  memoryToolInputSchema,
} from "@mem/core";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import {
  callMemoryTool,
  createMemoryMcpServer,
  MEMORY_PROTOCOL_PROMPT,
  MEMORY_PROTOCOL_URI,
  type MemoryMcpServerOptions,
} from "../src/index.js";
import { newClient } from "./helpers/mcp-client.js";

/** A real client and server over the SDK's in-process transport pair. */
async function connect(store: MemoryStore, options?: MemoryMcpServerOptions): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMemoryMcpServer(store, options).connect(serverSide);
  const client = newClient();
  await client.connect(clientSide);
  return client;
}

describe("createMemoryMcpServer", () => {
  it("publishes one memory tool with core's description and input schema", async () => {
    const client = await connect(new InMemoryStore());
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      name: "memory",
      description: MEMORY_TOOL_DESCRIPTION,
      inputSchema: memoryToolInputSchema(),
      annotations: { readOnlyHint: false, destructiveHint: true },
    });
    for (const word of [
      "view",
      "create",
      "str_replace",
      "insert",
      "delete",
      "rename",
      "/memories",
      "view_range",
    ]) {
      expect(MEMORY_TOOL_DESCRIPTION).toContain(word);
    }
  });

  it("returns exactly what executeCommand returns, isError included", async () => {
    const store = new InMemoryStore();
    const reference = new InMemoryStore();
    const client = await connect(store);
    const inputs = [
      { command: "create", path: "/memories/a.md", file_text: "one\ntwo\n" },
      { command: "create", path: "/memories/a.md", file_text: "again" },
      { command: "str_replace", path: "/memories/a.md", old_str: "two", new_str: "2" },
      { command: "view", path: "/memories/a.md", view_range: [2, -1] },
      { command: "view", path: "/memories" },
      { command: "insert", path: "/memories/a.md", insert_line: 9, insert_text: "x" },
    ];
    for (const input of inputs) {
      expect(await callMemoryTool(client, input)).toEqual(await executeCommand(reference, input));
    }
  });

  it("treats absent arguments as an empty input object", async () => {
    const client = await connect(new InMemoryStore());
    const result = await client.callTool({ name: "memory" });
    expect(result).toEqual({
      content: [{ type: "text", text: (await executeCommand(new InMemoryStore(), {})).content }],
      isError: true,
    });
  });

  it("answers a call to another tool with an error result", async () => {
    const client = await connect(new InMemoryStore());
    expect(await client.callTool({ name: "bash", arguments: {} })).toEqual({
      content: [{ type: "text", text: "Error: Unknown tool `bash`. The only tool here is `memory`" }],
      isError: true,
    });
  });

  it("runs the calls of one connection one at a time, in the order they arrive", async () => {
    // A slow write: without an ordering, the edit would read the file before the create wrote it.
    const slow = new (class extends ForwardingStore {
      override async write(...args: Parameters<MemoryStore["write"]>) {
        await new Promise((done) => setTimeout(done, 50));
        return super.write(...args);
      }
    })(new InMemoryStore());
    const client = await connect(slow);
    const [created, edited] = await Promise.all([
      callMemoryTool(client, { command: "create", path: "/memories/a.md", file_text: "draft\n" }),
      callMemoryTool(client, {
        command: "str_replace",
        path: "/memories/a.md",
        old_str: "draft",
        new_str: "final",
      }),
    ]);
    expect(created.isError).toBe(false);
    expect(edited.isError).toBe(false);
  });

  it("read-only: lists only view, runs it, refuses the rest without touching the store", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/a.md", new TextEncoder().encode("a\n"), { ifAbsent: true });
    let writes = 0;
    const watched = new (class extends ForwardingStore {
      override write(...args: Parameters<MemoryStore["write"]>) {
        writes++;
        return super.write(...args);
      }
      override delete(path: string) {
        writes++;
        return super.delete(path);
      }
      override rename(from: string, to: string) {
        writes++;
        return super.rename(from, to);
      }
    })(store);
    const client = await connect(watched, { readOnly: true });
    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema).toEqual(memoryToolInputSchema({ readOnly: true }));
    expect(Object.keys(tools[0]?.inputSchema.properties ?? {})).toEqual(["command", "path", "view_range"]);
    expect(tools[0]?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect((await callMemoryTool(client, { command: "view", path: "/memories" })).isError).toBe(false);
    for (const command of ["create", "str_replace", "insert", "delete", "rename"]) {
      expect(
        await callMemoryTool(client, { command, path: "/memories/a.md", old_path: "/memories/a.md" }),
      ).toEqual({
        content: `Error: This memory is read-only: the \`${command}\` command is not available. Only \`view\` works here.`,
        isError: true,
      });
    }
    // Input the engine refuses by itself keeps the engine's answer.
    expect((await callMemoryTool(client, { command: "format" })).content).toMatch(
      /^Error: Unknown command `format`/,
    );
    expect(writes).toBe(0);
  });

  it("passes executeCommand's options through", async () => {
    const client = await connect(new InMemoryStore(), { maxFileBytes: 4 });
    expect(
      await callMemoryTool(client, { command: "create", path: "/memories/a", file_text: "12345" }),
    ).toEqual({
      content: "Error: File /memories/a would be 5 bytes, which exceeds the limit of 4 bytes",
      isError: true,
    });
  });

  it("offers the memory protocol of SPEC §6 as a prompt and a resource, unless turned off", async () => {
    const client = await connect(new InMemoryStore());
    const prompt = await client.getPrompt({ name: MEMORY_PROTOCOL_PROMPT });
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "text", text: MEMORY_SYSTEM_PROMPT } },
    ]);
    const resource = await client.readResource({ uri: MEMORY_PROTOCOL_URI });
    expect(resource.contents).toEqual([
      { uri: MEMORY_PROTOCOL_URI, mimeType: "text/plain", text: MEMORY_SYSTEM_PROMPT },
    ]);

    const bare = await connect(new InMemoryStore(), { protocol: false });
    expect(bare.getServerCapabilities()).not.toHaveProperty("prompts");
    expect(bare.getServerCapabilities()).not.toHaveProperty("resources");
    expect((await bare.listTools()).tools).toHaveLength(1);
  });

  it("rejects bad options with a TypeError naming the option", () => {
    const store = new InMemoryStore();
    expect(() => createMemoryMcpServer(store, { readOnly: 1 as unknown as boolean })).toThrow(
      new TypeError("readOnly must be true or false"),
    );
    expect(() => createMemoryMcpServer(store, { protocol: "no" as unknown as boolean })).toThrow(
      new TypeError("protocol must be true or false"),
    );
    expect(() => createMemoryMcpServer(store, { maxFileBytes: -1 })).toThrow(
      new TypeError("maxFileBytes must be a non-negative integer"),
    );
    expect(() => createMemoryMcpServer(store, { maxFiles: 0 })).toThrow(
      new TypeError("maxFiles must be a positive integer (at least 1), or left unset for no limit"),
    );
    expect(() => createMemoryMcpServer(store, { maxTotalBytes: 1.5 })).toThrow(
      new TypeError("maxTotalBytes must be a positive integer (at least 1), or left unset for no limit"),
    );
    expect(() => createMemoryMcpServer(store, null as unknown as MemoryMcpServerOptions)).toThrow(TypeError);
  });

  it("passes the quota options through", async () => {
    const client = await connect(new InMemoryStore(), { maxFiles: 1, maxTotalBytes: 100 });
    const create = (path: string) => callMemoryTool(client, { command: "create", path, file_text: "x\n" });
    expect((await create("/memories/a")).isError).toBe(false);
    const reference = new InMemoryStore();
    const quota = { maxFiles: 1, maxTotalBytes: 100 };
    await executeCommand(reference, { command: "create", path: "/memories/a", file_text: "x\n" }, quota);
    const expected = await executeCommand(
      reference,
      { command: "create", path: "/memories/b", file_text: "x\n" },
      quota,
    );
    expect(expected.isError).toBe(true);
    expect(await create("/memories/b")).toEqual(expected);
  });
});
