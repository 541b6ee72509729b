/**
 * `mem mcp` with the MCP SDK's real client over stdio: each server is the `mem` command itself, spawned
 * on the TypeScript sources (as the tests run them), serving an fs store.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type GoldenTranscript,
  loadGoldenTranscripts,
  objectInputsOnly,
  playTranscript,
} from "@mem/conformance";
import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { callMemoryTool } from "@mem/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { memCommandLine, PACKAGE_DIR, runMem } from "./helpers/run-mem.js";
import { keepTwoVersions } from "./helpers/versions.js";

// Starting the command on sources takes seconds on a busy machine; a call waits on others' locks.
const SPAWN_TIMEOUT = 120_000;
const CALL = { timeout: SPAWN_TIMEOUT };

const base = mkdtempSync(join(tmpdir(), "mem-mcp-cli-"));
let roots = 0;
const newRoot = (): string => join(base, `root-${++roots}`);
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** `mem mcp fs:ROOT FLAGS...` as a child process, with a connected client. */
async function spawnMem(root: string, flags: string[] = []): Promise<Client> {
  const client = new Client({ name: "mem-cli-test", version: "0.0.0" });
  const [command = process.execPath, ...args] = memCommandLine(["mcp", `fs:${root}`, ...flags]);
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: PACKAGE_DIR,
    stderr: "inherit",
  });
  await client.connect(transport, CALL);
  return client;
}

const sensitiveFlags = (sensitive: GoldenTranscript["options"]["sensitive"]): string[] => {
  if (sensitive === undefined) return [];
  if (sensitive === false) return ["--sensitive", "off"];
  const detectors = Object.entries(sensitive.detectors ?? {}).map(([name, on]) => (on ? name : `-${name}`));
  return [
    ...(sensitive.mode === undefined ? [] : ["--sensitive", sensitive.mode]),
    ...(detectors.length === 0 ? [] : ["--detectors", detectors.join(",")]),
  ];
};

const flagsFor = (options: GoldenTranscript["options"]): string[] => [
  ...(options.maxFileBytes === undefined ? [] : ["--max-file-bytes", String(options.maxFileBytes)]),
  ...(options.viewCharLimit === undefined ? [] : ["--view-char-limit", String(options.viewCharLimit)]),
  ...(options.listLimit === undefined ? [] : ["--list-limit", String(options.listLimit)]),
  ...(options.maxImageBytes === undefined ? [] : ["--max-image-bytes", String(options.maxImageBytes)]),
  ...(options.createOverwrites ? ["--create-overwrites"] : []),
  ...sensitiveFlags(options.sensitive),
];

/**
 * One server process per set of transcript options, each on its own directory, emptied before every
 * transcript (the server holds no state between calls), so 31 transcripts need a handful of processes.
 */
const servers = new Map<string, Promise<{ client: Client; root: string; store: MemoryStore }>>();
const serverFor = (options: GoldenTranscript["options"]) => {
  const flags = flagsFor(options);
  const key = flags.join(" ");
  let server = servers.get(key);
  if (!server) {
    const root = newRoot();
    const store = new FsStore({ root });
    server = spawnMem(root, flags).then((client) => ({ client, root, store }));
    servers.set(key, server);
  }
  return server;
};
afterAll(async () => {
  await Promise.all([...servers.values()].map(async (server) => (await server).client.close()));
});

describe("mem mcp over stdio", () => {
  it(
    "lists the memory tool and the memory protocol prompt",
    async () => {
      const { client } = await serverFor({});
      const { tools } = await client.listTools();
      expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([["memory", false]]);
      expect(tools[0]?.description).toContain("/memories");
      expect(tools[0]?.description).toContain("view_range");
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(["memory_protocol"]);
    },
    SPAWN_TIMEOUT,
  );

  describe("golden transcripts, byte for byte", () => {
    for (const transcript of loadGoldenTranscripts()) {
      it(
        transcript.name,
        async () => {
          const { client, root, store } = await serverFor(transcript.options);
          for (const name of readdirSync(root)) rmSync(join(root, name), { recursive: true, force: true });
          await playTranscript(store, objectInputsOnly(transcript), (input) =>
            callMemoryTool(client, input as Record<string, unknown>, CALL),
          );
        },
        SPAWN_TIMEOUT,
      );
    }
  });

  it(
    "answers hostile input with error results and changes nothing",
    async () => {
      const root = newRoot();
      const store = new FsStore({ root });
      const client = await spawnMem(root);
      try {
        for (const input of [
          { command: "view", path: "/memories/../../etc/passwd" },
          { command: "create", path: "/memories/\uff0e\uff0e/x", file_text: "x" },
          { command: "rename", old_path: "/memories", new_path: "/tmp/x" },
          { command: "create", path: "/memories/a", file_text: "\ud800" },
          { command: "delete", path: ["/memories"] },
          { command: "str_replace", path: "/memories/a", old_str: "" },
        ]) {
          const result = await callMemoryTool(client, input, CALL);
          expect(result.isError, JSON.stringify(input)).toBe(true);
          expect(result.content).toMatch(/^Error: /);
        }
        expect(await store.list("/memories", 2)).toEqual({ size: 0, entries: [] });
      } finally {
        await client.close();
      }
    },
    SPAWN_TIMEOUT,
  );

  it(
    "refuses every command but view with --read-only",
    async () => {
      const root = newRoot();
      const store = new FsStore({ root });
      await store.write("/memories/a.md", new TextEncoder().encode("a\n"), { ifAbsent: true });
      const client = await spawnMem(root, ["--read-only"]);
      try {
        const { tools } = await client.listTools();
        expect(tools[0]?.inputSchema.properties?.["command"]).toMatchObject({ enum: ["view"] });
        expect(await callMemoryTool(client, { command: "view", path: "/memories/a.md" }, CALL)).toEqual({
          content: "Here's the content of /memories/a.md with line numbers:\n     1\ta",
          isError: false,
        });
        expect(await callMemoryTool(client, { command: "delete", path: "/memories/a.md" }, CALL)).toEqual({
          content:
            "Error: This memory is read-only: the `delete` command is not available. Only `view` works here.",
          isError: true,
        });
        expect(await store.stat("/memories/a.md")).toEqual({ kind: "file", size: 2 });
      } finally {
        await client.close();
      }
    },
    SPAWN_TIMEOUT,
  );

  it(
    "offers memory_search as a second tool with --search",
    async () => {
      const root = newRoot();
      const store = new FsStore({ root });
      await store.write("/memories/a.md", new TextEncoder().encode("Green tea\n"), { ifAbsent: true });
      const client = await spawnMem(root, ["--search", "--read-only"]);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(["memory", "memory_search"]);
        const found = await client.callTool({ name: "memory_search", arguments: { query: "TEA" } });
        expect(found.content).toEqual([
          {
            type: "text",
            text: 'Found 1 matching line(s) for "TEA" in /memories:\n/memories/a.md:1: Green tea',
          },
        ]);
      } finally {
        await client.close();
      }
    },
    SPAWN_TIMEOUT,
  );

  it(
    "loses no update: 4 server processes on one directory, 20 inserts each into one file",
    async () => {
      const root = newRoot();
      const store = new FsStore({ root });
      await store.write("/memories/log.md", new Uint8Array(), { ifAbsent: true });
      const clients = await Promise.all(Array.from({ length: 4 }, () => spawnMem(root)));
      try {
        await Promise.all(
          clients.map(async (client, c) => {
            for (let i = 0; i < 20; i++) {
              const input = {
                command: "insert",
                path: "/memories/log.md",
                insert_line: 0,
                insert_text: `c${c} i${i}`,
              };
              expect(await callMemoryTool(client, input, CALL)).toEqual({
                content: "The file /memories/log.md has been edited.",
                isError: false,
              });
            }
          }),
        );
      } finally {
        await Promise.all(clients.map((client) => client.close()));
      }
      const text = new TextDecoder().decode((await store.read("/memories/log.md"))?.data);
      const lines = text.split("\n").filter((line) => line !== "");
      expect(lines).toHaveLength(80);
      expect(new Set(lines).size).toBe(80);
    },
    SPAWN_TIMEOUT * 2,
  );
});

describe("mem mcp, store and options", () => {
  it(
    "keeps versions in a store that holds history; the model can neither see nor touch them",
    async () => {
      const root = newRoot();
      const kept = await keepTwoVersions(new FsStore({ root }), "/memories/a.md", "one", "two");
      const client = await spawnMem(root);
      try {
        const peek = await callMemoryTool(client, { command: "view", path: "/memories/.mem-history" }, CALL);
        expect(peek.isError).toBe(true);
        const wipe = await callMemoryTool(
          client,
          { command: "delete", path: "/memories/.mem-history" },
          CALL,
        );
        expect(wipe.isError).toBe(true);
        const listing = await callMemoryTool(client, { command: "view", path: "/memories" }, CALL);
        expect(listing.content).not.toContain(".mem-history");
        const edit = { command: "str_replace", path: "/memories/a.md", old_str: "two", new_str: "three" };
        expect((await callMemoryTool(client, edit, CALL)).isError).toBe(false);
      } finally {
        await client.close();
      }
      expect((await kept.versions("/memories/a.md")).length).toBe(2);
    },
    SPAWN_TIMEOUT,
  );

  it(
    "passes --max-files and --max-bytes on as the server's quota",
    async () => {
      const root = newRoot();
      const client = await spawnMem(root, ["--max-files", "1", "--max-bytes", "1000"]);
      const reference = new InMemoryStore();
      const quota = { maxFiles: 1, maxTotalBytes: 1000 };
      try {
        for (const path of ["/memories/a", "/memories/b"]) {
          const input = { command: "create", path, file_text: "x\n" };
          const expected = await executeCommand(reference, input, quota);
          expect(await callMemoryTool(client, input, CALL)).toEqual(expected);
        }
        expect((await executeCommand(reference, { command: "view", path: "/memories/b" })).isError).toBe(
          true,
        );
      } finally {
        await client.close();
      }
    },
    SPAWN_TIMEOUT,
  );

  it(
    "checks the store before it announces itself: one line naming it, password masked, exit 1",
    async () => {
      const result = await runMem(["mcp", "redis://app:hunter2@127.0.0.1:1/x", "--http", "--port", "0"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^mem: Redis redis:\/\/app:\*\*\*@127\.0\.0\.1:1, prefix "x": [^\n]+\n$/);
      expect(result.stderr).not.toContain("MCP server at");
      expect(result.stderr).not.toContain("hunter2");
    },
    SPAWN_TIMEOUT,
  );

  it(
    "serves /metrics beside --tenant-tokens to the --metrics-token only",
    async () => {
      const dir = newRoot();
      mkdirSync(dir, { recursive: true });
      const tokens = join(dir, "tokens.json");
      const tenant = "tenant-token-of-alice-0123";
      const operator = "the-operators-metrics-token";
      writeFileSync(tokens, JSON.stringify({ [tenant]: "alice" }));
      const [command = process.execPath, ...rest] = memCommandLine([
        "mcp",
        `fs:${join(dir, "store")}`,
        "--http",
        "--port",
        "0",
        "--tenant-tokens",
        tokens,
        "--metrics-token",
        operator,
      ]);
      const child = spawn(command, rest, { cwd: PACKAGE_DIR, stdio: ["ignore", "ignore", "pipe"] });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let err = "";
          child.stderr.on("data", (chunk: Buffer) => {
            err += chunk.toString();
            const found = /MCP server at (\S+)/.exec(err);
            if (found) resolve(found[1] as string);
          });
          child.on("close", (code) => reject(new Error(`mem mcp exited ${code}: ${err}`)));
        });
        const metrics = (token: string) =>
          fetch(url.replace(/\/mcp$/, "/metrics"), { headers: { authorization: `Bearer ${token}` } });
        expect((await metrics(tenant)).status).toBe(401);
        const scraped = await metrics(operator);
        expect(scraped.status).toBe(200);
        expect(await scraped.text()).toContain("# TYPE memory_command_duration_seconds histogram");
      } finally {
        const closed = new Promise((resolve) => child.on("close", resolve));
        child.kill("SIGTERM");
        await closed;
      }
    },
    SPAWN_TIMEOUT,
  );

  it(
    "tells a missing --tenant-tokens file from one that is not JSON, without showing its content",
    async () => {
      const dir = newRoot();
      const store = join(dir, "store");
      const missing = await runMem([
        "mcp",
        `fs:${store}`,
        "--http",
        "--tenant-tokens",
        join(dir, "none.json"),
      ]);
      expect(missing).toMatchObject({
        code: 2,
        stderr: `mem: --tenant-tokens: ${join(dir, "none.json")} does not exist\n`,
      });
      rmSync(dir, { recursive: true, force: true });
      const bad = join(base, `bad-${roots}.json`);
      writeFileSync(bad, '{"tok-secret-123456": bob}');
      const invalid = await runMem(["mcp", `fs:${store}`, "--http", "--tenant-tokens", bad]);
      expect(invalid).toMatchObject({ code: 2, stderr: `mem: --tenant-tokens: ${bad} is not valid JSON\n` });
      expect(existsSync(store)).toBe(false);
    },
    SPAWN_TIMEOUT,
  );
});
