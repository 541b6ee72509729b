/** `mem mcp URL`: serves a store to MCP clients (Claude Desktop, Claude Code, IDEs) over stdio or HTTP. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import type { SensitiveOptions } from "@mem/core";
import type { MemoryMcpServerOptions } from "@mem/mcp";
import { Option } from "commander";
import { CommandError } from "../context.js";
import {
  ACTOR_OPTION,
  type CommandModule,
  EXPIRE_AFTER_OPTION,
  examples,
  HISTORY_OPTION,
  URL_ARGUMENT,
} from "./common.js";

/** The environment variable that can hold the bearer token, so that it stays out of `ps` listings. */
export const TOKEN_VARIABLE = "MEM_MCP_TOKEN";
/** The environment variable that can hold the `/metrics` token. */
export const METRICS_TOKEN_VARIABLE = "MEM_MCP_METRICS_TOKEN";

interface McpFlags {
  http?: boolean;
  search?: boolean;
  host?: string;
  port?: number;
  token?: string;
  tenantTokens?: string;
  metricsToken?: string;
  readOnly?: boolean;
  maxFileBytes?: number;
  maxFiles?: number;
  maxBytes?: number;
  history?: boolean;
  viewCharLimit?: number;
  listLimit?: number;
  sensitive?: string;
  detectors?: string;
  expireAfter?: number;
  createOverwrites?: boolean;
  maxImageBytes?: number;
  actor?: string;
}

const count = (flag: string) => (value: string) => {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new CommandError(`${flag} must be a whole number, got ${JSON.stringify(value)}`, 2);
  }
  return Number(value);
};

/** A usage error for options the library refuses (its `TypeError`s name the option, never a token's value). */
const asUsage = (error: unknown): never => {
  if (error instanceof TypeError) throw new CommandError(error.message, 2);
  throw error;
};

const readTenantTokens = (file: string, cwd: string): Record<string, string> => {
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CommandError(
      code === "ENOENT"
        ? `--tenant-tokens: ${file} does not exist`
        : `--tenant-tokens: cannot read ${file} (${code ?? (error as Error).message})`,
      2,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the mistake, which may be a token: not shown.
    throw new CommandError(`--tenant-tokens: ${file} is not valid JSON`, 2);
  }
  const entries =
    typeof value === "object" && value !== null && !Array.isArray(value) ? Object.values(value) : [];
  if (entries.length === 0 || !entries.every((tenant) => typeof tenant === "string")) {
    throw new CommandError(
      "--tenant-tokens: the file must hold a JSON object mapping tokens to tenant ids",
      2,
    );
  }
  return value as Record<string, string>;
};

/**
 * The sensitive-data guard from `--sensitive refuse|redact|off` and `--detectors email,phone,-jwt` (a name
 * turns a built-in detector on, `-name` turns it off); core's `resolveGuard` checks the names.
 */
const guardOptions = (flags: McpFlags): SensitiveOptions | false => {
  const mode = flags.sensitive ?? "refuse";
  if (mode !== "refuse" && mode !== "redact" && mode !== "off") {
    throw new CommandError(`--sensitive must be refuse, redact or off, got ${JSON.stringify(mode)}`, 2);
  }
  if (mode === "off") return false;
  const detectors: Record<string, boolean> = {};
  for (const name of (flags.detectors ?? "").split(",").filter((n) => n !== "")) {
    if (name.startsWith("-")) detectors[name.slice(1)] = false;
    else detectors[name] = true;
  }
  return { mode, detectors } as SensitiveOptions;
};

/** Resolves when the process is asked to stop. */
const stopSignal = (): Promise<void> =>
  new Promise((done) => {
    process.once("SIGINT", () => done());
    process.once("SIGTERM", () => done());
  });

// The MCP server (its SDK, express, pino, prom-client) loads only when `mem mcp` runs or shows its help,
// so that every other command starts without it.
const loadMcp = () => import("@mem/mcp");

export const mcp: CommandModule = (program, ctx) => {
  const port = new Option("--port <port>", "port with --http (0: any free port)").argParser(count("--port"));
  program
    .command("mcp")
    // Help is printed synchronously (`mem help mcp` runs no hook), so the default port is required then.
    .on("beforeHelp", () => {
      try {
        port.default((createRequire(import.meta.url)("@mem/mcp") as typeof import("@mem/mcp")).DEFAULT_PORT);
      } catch {
        // Only where `@mem/mcp` resolves to its TypeScript sources (the in-process tests), which require()
        // cannot load: the help then shows no default port. The built command always shows it.
      }
    })
    .description(
      "Serve the store as an MCP server with one memory tool (stdio, or streamable HTTP with --http)",
    )
    .argument(...URL_ARGUMENT)
    .option("--http", "serve streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    .option("--host <host>", "address to bind with --http; any but loopback needs a token", "127.0.0.1")
    .addOption(port)
    .option("--token <token>", `bearer token every HTTP request must carry (or set ${TOKEN_VARIABLE})`)
    .option("--tenant-tokens <file>", "JSON file mapping bearer tokens to tenant ids: one memory per tenant")
    .option(
      "--metrics-token <token>",
      `bearer token for /metrics only, the operator's (or set ${METRICS_TOKEN_VARIABLE}); tenant tokens never read it`,
    )
    .option("--read-only", "allow only the view command")
    .option("--search", "offer memory_search as a second tool (the matching lines of the files)")
    .option("--max-file-bytes <n>", "largest file a command may leave behind", count("--max-file-bytes"))
    .option(
      "--max-files <n>",
      "most files the store may hold (maxFiles): creates beyond it are refused",
      count("--max-files"),
    )
    .option(
      "--max-bytes <n>",
      "most bytes all files may hold (maxTotalBytes): growing beyond it is refused",
      count("--max-bytes"),
    )
    .option("--view-char-limit <n>", "budget of numbered lines in one file view", count("--view-char-limit"))
    .option("--list-limit <n>", "most entries one directory view shows", count("--list-limit"))
    .option("--create-overwrites", "let create replace an existing file (default: it is an error)")
    .option("--max-image-bytes <n>", "largest image one view returns", count("--max-image-bytes"))
    .option("--sensitive <mode>", "what a write holding a secret gets: refuse (default), redact, or off")
    .option("--detectors <list>", "turn detectors on or off, e.g. email,phone,-jwt (see @mem/core's guard)")
    .option(...EXPIRE_AFTER_OPTION)
    .option(...HISTORY_OPTION)
    .option(...ACTOR_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem mcp fs:$HOME/.memory",
        "claude mcp add memory -- npx -y @mem/cli mcp fs:$HOME/.memory",
        `${TOKEN_VARIABLE}=$(openssl rand -hex 24) mem mcp redis://127.0.0.1:6379/team --http --host 0.0.0.0`,
      ),
    )
    .action(async (url: string, flags: McpFlags) => {
      const { DEFAULT_PORT, serveHttp, serveStdio } = await loadMcp();
      const server: MemoryMcpServerOptions = {};
      if (flags.readOnly) server.readOnly = true;
      if (flags.search) server.search = true;
      if (flags.maxFileBytes !== undefined) server.maxFileBytes = flags.maxFileBytes;
      if (flags.maxFiles !== undefined) server.maxFiles = flags.maxFiles;
      if (flags.maxBytes !== undefined) server.maxTotalBytes = flags.maxBytes;
      if (flags.viewCharLimit !== undefined) server.viewCharLimit = flags.viewCharLimit;
      if (flags.listLimit !== undefined) server.listLimit = flags.listLimit;
      if (flags.createOverwrites) server.createOverwrites = true;
      if (flags.maxImageBytes !== undefined) server.maxImageBytes = flags.maxImageBytes;
      server.sensitive = guardOptions(flags);
      if (flags.actor !== undefined) server.actor = flags.actor;
      // The store is checked before the server announces itself: one that cannot work fails now, not
      // on every call.
      const open = {
        // A read-only server needs no write access (FsStore's check() asks for it), and creates nothing.
        ...(flags.readOnly ? { readOnly: true } : { check: true }),
        history: flags.history === true,
        ...(flags.expireAfter !== undefined && { expireAfterSeconds: flags.expireAfter }),
      };

      if (!flags.http) {
        await ctx.withStore(
          url,
          async (store) => {
            const running = await serveStdio(store, server).catch(asUsage);
            await Promise.race([running.closed, stopSignal()]);
            await running.close();
          },
          open,
        );
        return;
      }

      const token = flags.token ?? ctx.io.env[TOKEN_VARIABLE];
      const metricsToken = flags.metricsToken ?? ctx.io.env[METRICS_TOKEN_VARIABLE];
      const tenantFromToken =
        flags.tenantTokens === undefined ? undefined : readTenantTokens(flags.tenantTokens, ctx.io.cwd);
      await ctx.withStore(
        url,
        async (store) => {
          const running = await serveHttp(store, {
            ...server,
            host: flags.host ?? "127.0.0.1",
            port: flags.port ?? DEFAULT_PORT,
            ...(token === undefined ? {} : { token }),
            ...(tenantFromToken === undefined ? {} : { tenantFromToken }),
            ...(metricsToken === undefined ? {} : { metricsToken }),
          }).catch(asUsage);
          ctx.note(`mem: MCP server at ${running.url} (Ctrl-C stops it)`);
          await stopSignal();
          await running.close();
        },
        open,
      );
    });
};
