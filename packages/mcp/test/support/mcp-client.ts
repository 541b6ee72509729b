/** Real MCP clients for the tests, and the glue that plays golden transcripts through them. */
import { fileURLToPath } from "node:url";
import type { GoldenTranscript, TranscriptExecutor } from "@mem/conformance";
import type { ToolResult } from "@mem/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

export const newClient = (): Client => new Client({ name: "mem-mcp-test", version: "0.0.0" });

/** A client connected to `url`, sending `token` as a bearer token when given. */
export async function httpClient(url: string, token?: string): Promise<Client> {
  const client = newClient();
  const requestInit: RequestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  return client;
}

const FIXTURE = fileURLToPath(new URL("../fixtures/stdio-server.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** The command that runs the stdio fixture on TypeScript sources, as vitest does. */
export const stdioFixtureCommand = (
  root: string,
  options: object = {},
): { command: string; args: string[] } => ({
  command: process.execPath,
  args: ["--conditions=@mem/source", "--import", "tsx", FIXTURE, root, JSON.stringify(options)],
});

/** A client connected to a freshly spawned stdio server process. */
export async function stdioClient(spawn: { command: string; args: string[] }): Promise<Client> {
  const client = newClient();
  await client.connect(new StdioClientTransport({ ...spawn, cwd: PACKAGE_DIR, stderr: "inherit" }));
  return client;
}

/** One call of the `memory` tool, as the engine's `{ content, isError }`; anything else fails the test. */
export async function callMemory(client: Client, input: Record<string, unknown>): Promise<ToolResult> {
  const result = (await client.callTool(
    { name: "memory", arguments: input },
    CallToolResultSchema,
  )) as CallToolResult;
  const [first, ...rest] = result.content;
  if (!first || first.type !== "text" || rest.length > 0) {
    throw new Error(`expected exactly one text block, got ${JSON.stringify(result.content)}`);
  }
  if (typeof result.isError !== "boolean") throw new Error("expected an explicit isError");
  return { content: first.text, isError: result.isError };
}

export const isObjectInput = (input: unknown): input is Record<string, unknown> =>
  typeof input === "object" && input !== null && !Array.isArray(input);

/**
 * MCP carries a tool's arguments as a JSON object, so a transcript step whose input is another JSON value
 * cannot be sent as a tool call (the protocol refuses it; tested separately). Those steps are all error
 * results that change nothing, so leaving them out keeps the rest of the transcript meaningful.
 */
export function objectStepsOnly(transcript: GoldenTranscript): GoldenTranscript {
  const steps = transcript.steps.filter((step) => isObjectInput(step.input));
  return { ...transcript, steps };
}

/** Plays steps through an MCP client instead of calling the engine directly. */
export const viaClient =
  (client: Client): TranscriptExecutor =>
  (input) => {
    if (!isObjectInput(input)) throw new Error("only object inputs can travel as MCP tool arguments");
    return callMemory(client, input);
  };
