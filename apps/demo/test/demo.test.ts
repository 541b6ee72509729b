import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { executeCommand, InMemoryStore } from "@mem/core";
import {
  contextManagement,
  MEMORY_SEARCH_TOOL_DEFINITION,
  MEMORY_SYSTEM_PROMPT,
  MEMORY_TIDINESS_NOTE,
} from "@mem/core/anthropic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DemoError, type DemoResult, runDemo } from "../src/demo.js";
import { DEMO_TOKEN, NOTES_PATH } from "../src/scenario.js";

/** What the engine answers to a view of an empty memory directory. */
let EMPTY_VIEW: string;
const NOTES_FILE = "web_scraper_debugging.md";

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "mem-demo-test-"));
  EMPTY_VIEW = (await executeCommand(new InMemoryStore(), { command: "view", path: "/memories" })).content;
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const demo = async (store: string, options: { keep?: boolean; env?: Record<string, string> } = {}) => {
  let output = "";
  const result = await runDemo({
    store,
    model: "claude-test",
    keep: options.keep ?? false,
    offline: false,
    env: options.env ?? {},
    cwd: base,
    output: {
      write: (s: string) => {
        output += s;
      },
    },
  });
  return { result, output };
};

describe("the offline demo on a local directory", () => {
  let run: { result: DemoResult; output: string };
  beforeAll(async () => {
    run = await demo("fs:./memory");
  });

  it("runs offline without an API key and says so", () => {
    expect(run.result.offline).toBe(true);
    expect(run.output).toContain("Offline: a scripted Claude answers on a local Messages API");
    expect(run.output).not.toContain("\u001b[");
  });

  it("sends the recommended system prompt, the memory tool and context management with every session", () => {
    const opening = run.result.requests.filter(
      (r) => (r.body["thread"] as { type: string }).type === "create",
    );
    expect(opening).toHaveLength(2);
    for (const request of opening) {
      expect(request.body["system"]).toBe(`${MEMORY_SYSTEM_PROMPT}\n\n${MEMORY_TIDINESS_NOTE}`);
      expect(request.body["tools"]).toEqual([
        { type: "memory_20250818", name: "memory" },
        { ...MEMORY_SEARCH_TOOL_DEFINITION },
      ]);
      expect(request.body["context_management"]).toEqual(contextManagement().context_management);
      expect(request.body["stream"]).toBe(true);
      expect(String(request.headers["anthropic-beta"])).toContain("context-management-2025-06-27");
    }
  });

  it("starts the first session from an empty memory and records what it learns", () => {
    const [first] = run.result.sessions;
    expect(first?.toolCalls[0]).toEqual({
      input: { command: "view", path: "/memories" },
      content: EMPTY_VIEW,
      isError: false,
    });
    expect(first?.toolCalls.map((c) => (c.input as { command: string }).command)).toEqual([
      "view",
      "create",
      "create",
      "str_replace",
    ]);
    expect(run.result.memory[0]?.map((f) => f.path)).toEqual([NOTES_PATH]);
    expect(run.result.memory[0]?.[0]?.content).toContain("Fix proposed:");
  });

  it("has the token in the prompt refused by the sensitive-data guard, and keeps it out of memory", () => {
    const [first] = run.result.sessions;
    expect(first?.toolCalls[1]).toMatchObject({
      content: `Error: Refused to write ${NOTES_PATH}: line 15 looks like an API key. Do not store secrets or personal data in memory.`,
      isError: true,
    });
    expect(run.output).toContain("looks like an API key");
    for (const files of run.result.memory) for (const f of files) expect(f.content).not.toContain(DEMO_TOKEN);
  });

  it("lists the kept versions of the notes and undoes the last change from history", () => {
    const { versions, afterUndo } = run.result.history;
    expect(versions).toHaveLength(3); // before session 1's edit and before each of session 2's two edits
    expect(afterUndo[0]?.content).toBe(
      run.result.memory[1]?.[0]?.content.replace(
        "- HTTP 429 means the site rate-limits us: wait for Retry-After, keep ~1 request/s per host.\n",
        "",
      ),
    );
    expect(run.output).toContain(`── history of ${NOTES_PATH}`);
    expect(run.output).toContain(`store.restore("${NOTES_PATH}", "${versions[0]?.id}")`);
  });

  it("has the second session view its memory first and continue from the first one's notes", () => {
    const second = run.result.sessions[1];
    const [listing, found, notes, ...edits] = second?.toolCalls ?? [];
    expect(listing?.input).toEqual({ command: "view", path: "/memories" });
    expect(listing?.content.split("\n").at(-1)).toMatch(new RegExp(`^\\d+B\\t${NOTES_PATH}$`));
    // One memory_search finds the notes by what they are about.
    expect(found?.input).toEqual({ query: "fetch_page" });
    expect(found?.content).toBe(
      `Found 1 matching line(s) for "fetch_page" in /memories:\n${NOTES_PATH}:4: fetch_page(url, retries=3) crashes with requests.exceptions.Timeout.`,
    );
    expect(notes?.input).toEqual({ command: "view", path: NOTES_PATH });
    expect(notes?.content).toContain("Fix proposed: timeout=(3.05, 30)");
    expect(edits.map((c) => (c.input as { command: string }).command)).toEqual(["str_replace", "insert"]);
    expect(second?.toolCalls.every((c) => !c.isError)).toBe(true);
    expect(second?.finalText).toContain("Picking up from my notes");
  });

  it("leaves the notes of both sessions on disk", async () => {
    const text = await readFile(join(base, "memory", NOTES_FILE), "utf8");
    expect(text).toContain("Fix applied, timeouts are gone. New problem: HTTP 429");
    expect(text).toContain("- The last attempt re-raises");
    expect(text).toBe(run.result.history.afterUndo[0]?.content);
  });

  it("shows each tool call, its result and the memory tree", () => {
    expect(run.output).toContain(`⚙ memory view ${NOTES_PATH}`);
    expect(run.output).toContain(run.result.sessions[0]?.toolCalls[1]?.content);
    expect(run.output).toContain("── memory after session 2");
    expect(run.output).toMatch(new RegExp(`${NOTES_FILE}  \\d+ bytes`));
  });

  it("starts again from an empty memory on the next run", async () => {
    const again = await demo("fs:./memory");
    expect(again.result.sessions[0]?.toolCalls[0]?.content).toBe(EMPTY_VIEW);
    expect(again.result.memory[1]?.[0]?.content).toBe(run.result.memory[1]?.[0]?.content);
  });

  it("reuses the memory with --keep, and may clear it again later", async () => {
    const kept = await demo("fs:./memory", { keep: true });
    const first = kept.result.sessions[0];
    expect(first?.toolCalls.map((c) => c.input)).toEqual([
      { command: "view", path: "/memories" },
      { command: "view", path: NOTES_PATH },
    ]);
    expect(first?.finalText).toContain("I already have notes on this scraper");
    const fresh = await demo("fs:./kept-first", { keep: true });
    expect(fresh.result.sessions[0]?.toolCalls[0]?.content).toBe(EMPTY_VIEW);
    const cleared = await demo("fs:./kept-first");
    expect(cleared.result.sessions[0]?.toolCalls[0]?.content).toBe(EMPTY_VIEW);
  });
});

describe("the demo's safety and options", () => {
  it("refuses to clear a directory it did not create, and leaves it alone", async () => {
    const foreign = join(base, "project");
    await mkdir(foreign);
    await writeFile(join(foreign, "README.md"), "mine\n");
    await expect(demo("fs:./project")).rejects.toThrow(DemoError);
    await expect(demo("fs:./project")).rejects.toThrow(/not empty and was not created by this demo/);
    expect(await readdir(foreign)).toEqual(["README.md"]);
  });

  it("encrypts at rest with encrypted+fs and the key from MEMORY_KEY", async () => {
    const env = { MEMORY_KEY: Buffer.alloc(32, 42).toString("base64") };
    const { result } = await demo("encrypted+fs:./sealed", { env });
    expect(result.sessions[1]?.toolCalls[2]?.content).toContain("Fix proposed:");
    const names = (await readdir(join(base, "sealed"), { recursive: true })).map(String);
    const stored = names.find((n) => n.startsWith("web_scraper"));
    expect(stored).toBeDefined();
    const raw = await readFile(join(base, "sealed", stored ?? ""));
    expect(raw.includes("Web scraper debugging")).toBe(false);
  });

  it("explains a missing encryption key", async () => {
    await expect(demo("encrypted+fs:./nokey")).rejects.toThrow(/set MEMORY_KEY/);
  });
});

describe("the demo command", () => {
  const app = fileURLToPath(new URL("..", import.meta.url));
  const tsx = join(app, "node_modules", ".bin", "tsx");
  const cli = (args: string[], env: Record<string, string> = {}) =>
    promisify(execFile)(tsx, ["--conditions=@mem/source", "src/main.ts", ...args], {
      cwd: app,
      env: { PATH: process.env["PATH"] ?? "", INIT_CWD: base, ...env },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  it("runs both sessions offline and exits 0", async () => {
    const { code, stdout } = await cli(["--store", "fs:./cli-memory"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Offline:");
    expect(stdout).toContain("── memory after session 2");
    expect(await readdir(join(base, "cli-memory"))).toContain(NOTES_FILE);
  });

  it("exits non-zero with a clear message for an unknown store URL", async () => {
    const { code, stderr } = await cli(["--store", "mongodb://h/x"]);
    expect(code).toBe(2);
    expect(stderr).toContain('Unknown store URL scheme "mongodb:". Use one of: fs:<directory>');
  });

  it("exits non-zero for unknown options, with the usage", async () => {
    const { code, stderr } = await cli(["--shiny"]);
    expect(code).toBe(2);
    expect(stderr).toContain("Usage: pnpm demo");
  });
});
