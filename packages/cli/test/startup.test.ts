import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CLI_VERSION } from "../src/version.js";
import { runMem } from "./helpers/run-mem.js";

const dir = mkdtempSync(join(tmpdir(), "mem-startup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hook = fileURLToPath(new URL("./fixtures/module-log.mjs", import.meta.url));

/** The packages `mem args` imported, each once. */
const packagesLoaded = async (
  args: string[],
  name: string,
): Promise<{ out: string; loaded: Set<string> }> => {
  const log = join(dir, `${name}.log`);
  const run = await runMem(args, { env: { NODE_OPTIONS: `--import ${hook}`, MEM_MODULE_LOG: log } });
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return { out: run.out, loaded: new Set(readFileSync(log, "utf8").trim().split("\n")) };
};

// Start-up time is a benchmark (bench:cli); what is asserted here is what a command loads.
const HEAVY = [
  "@mem/mcp",
  "@modelcontextprotocol/sdk",
  "express",
  "pino",
  "prom-client",
  "tar",
  "cli-progress",
];
const ADAPTERS = ["@mem/redis", "@mem/postgres", "@mem/sqlite", "@mem/s3", "@mem/encrypted", "ioredis", "pg"];

describe("start-up loads only what the command needs", () => {
  it("mem --version prints the version and loads no store, server or archive code", async () => {
    const { out, loaded } = await packagesLoaded(["--version"], "version");
    expect(out).toBe(`${CLI_VERSION}\n`);
    expect(loaded.has("commander")).toBe(true); // the log works
    for (const name of [...HEAVY, ...ADAPTERS, "@mem/fs"]) expect(loaded.has(name), name).toBe(false);
  });

  it("mem tree on an fs store loads @mem/fs and none of the other adapters or servers", async () => {
    const url = `fs:${join(dir, "store")}`;
    const created = await runMem([
      "run",
      url,
      '{"command":"create","path":"/memories/a.md","file_text":"hi\\n"}',
    ]);
    expect(created.code).toBe(0);
    const { out, loaded } = await packagesLoaded(["tree", url], "tree");
    expect(out).toContain("a.md");
    expect(loaded.has("@mem/fs")).toBe(true);
    for (const name of [...HEAVY, ...ADAPTERS]) expect(loaded.has(name), name).toBe(false);
  });

  it("mem mcp --help and mem help mcp still show the server's default port", async () => {
    const { DEFAULT_PORT } = await import("@mem/mcp");
    for (const args of [
      ["mcp", "--help"],
      ["help", "mcp"],
    ]) {
      const run = await runMem(args);
      expect(run.code).toBe(0);
      expect(run.out).toMatch(
        new RegExp(`--port <port> +port with --http \\(0: any free port\\) \\(default: ${DEFAULT_PORT}\\)`),
      );
    }
  });
});
