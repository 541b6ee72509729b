/** A scheme registered by a module that `mem --require` loads works through every command and `mem mcp`. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callMemoryTool } from "@mem/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { memCommandLine, PACKAGE_DIR, runMem } from "./helpers/run-mem.js";

const REQUIRE = ["--require", "./test/fixtures/notes-scheme.mjs"];
const base = mkdtempSync(join(tmpdir(), "mem-cli-schemes-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("mem --require MODULE", () => {
  it("opens the URLs of a scheme the module registers, in every command", async () => {
    const url = `notes:${join(base, "run")}`;
    const create = JSON.stringify({ command: "create", path: "/memories/a.md", file_text: "one\ntwo\n" });
    const run = await runMem([...REQUIRE, "run", url, create]);
    expect({ code: run.code, out: run.out, stderr: run.stderr }).toEqual({
      code: 0,
      out: "File created successfully at: /memories/a.md\n",
      stderr: "",
    });
    expect(readFileSync(join(base, "run", "a.md"), "utf8")).toBe("one\ntwo\n");
    const tree = await runMem([...REQUIRE, "tree", `${url}?history`]);
    expect({ code: tree.code, out: tree.out }).toEqual({
      code: 0,
      out: "/memories  8B\n└── a.md  8B\n1 file, 8B (hidden ones included)\n",
    });
    const edit = JSON.stringify({
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "two",
      new_str: "2",
    });
    expect((await runMem([...REQUIRE, "run", `${url}?history`, edit])).code).toBe(0);
    // ?history wrapped the registered store in HistoryStore, which kept the version the edit replaced.
    const history = await runMem([...REQUIRE, "history", url, "/memories/a.md", "--json"]);
    expect(JSON.parse(history.out).versions).toHaveLength(1);
  });

  it("creates nothing for a command that only reads, and without the module the scheme is unknown", async () => {
    const missing = await runMem([...REQUIRE, "view", `notes:${join(base, "none")}`]);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 1,
      stderr: `mem: no store at ${join(base, "none")}\n`,
    });
    const unknown = await runMem(["view", `notes:${join(base, "run")}`]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^mem: Unknown store URL scheme "notes:"\. Use one of: fs:<directory>,/);
  });

  it("says in one line which package an adapter that is not installed needs", async () => {
    const result = await runMem([...REQUIRE, "view", "absent:x"]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 1,
      stderr: "mem: absent: needs @mem/absent-adapter: npm install @mem/absent-adapter\n",
    });
  });

  it("refuses a module that does not exist as a usage error", async () => {
    const result = await runMem(["--require", "./test/fixtures/nowhere.mjs", "tree", `fs:${base}`]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `mem: --require: cannot find ./test/fixtures/nowhere.mjs from ${PACKAGE_DIR.replace(/\/$/, "")}\n`,
    });
  });

  it("serves a registered scheme with mem mcp", async () => {
    const root = join(base, "mcp");
    const [command = process.execPath, ...args] = memCommandLine([...REQUIRE, "mcp", `notes:${root}`]);
    const client = new Client({ name: "mem-cli-test", version: "0.0.0" });
    await client.connect(new StdioClientTransport({ command, args, cwd: PACKAGE_DIR, stderr: "inherit" }), {
      timeout: 120_000,
    });
    try {
      expect(
        await callMemoryTool(client, { command: "create", path: "/memories/m.md", file_text: "served\n" }),
      ).toEqual({ content: "File created successfully at: /memories/m.md", isError: false });
      expect(await callMemoryTool(client, { command: "view", path: "/memories/m.md" })).toEqual({
        content: "Here's the content of /memories/m.md with line numbers:\n     1\tserved",
        isError: false,
      });
    } finally {
      await client.close();
    }
    expect(readFileSync(join(root, "m.md"), "utf8")).toBe("served\n");
  });
});
