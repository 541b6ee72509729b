/** `--mounts mounts.json` in place of the store URL: the real `mem` over a mount table file. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callMemoryTool } from "@mem/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { memCommandLine, PACKAGE_DIR, runMem } from "./helpers/run-mem.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mem-cli-mounts-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const HEADER =
  "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";

/** A mount table: a SQLite file at /memories, a read-only directory at /memories/team, both beside the file. */
const mountsFile = (): string => {
  const dir = tempDir();
  mkdirSync(join(dir, "team"));
  writeFileSync(join(dir, "team", "playbook.md"), "be kind\n");
  const file = join(dir, "mounts.json");
  writeFileSync(
    file,
    JSON.stringify({
      "/memories": { url: "sqlite:./me.db" },
      "/memories/team": { url: "fs:./team", access: "read_only", instructions: "The team's playbook." },
    }),
  );
  return file;
};

describe("mem --mounts", () => {
  it("runs, views and lists one /memories made of the table's stores; read-only mounts refuse writes", async () => {
    const file = mountsFile();
    const created = await runMem([
      "run",
      "--mounts",
      file,
      JSON.stringify({ command: "create", path: "/memories/notes.md", file_text: "mine\n" }),
    ]);
    expect({ code: created.code, out: created.out, stderr: created.stderr }).toEqual({
      code: 0,
      out: "File created successfully at: /memories/notes.md\n",
      stderr: "",
    });
    const refused = await runMem([
      "run",
      `--mounts=${file}`,
      JSON.stringify({ command: "delete", path: "/memories/team/playbook.md" }),
    ]);
    expect({ code: refused.code, out: refused.out }).toEqual({
      code: 1,
      out: "Error: The path /memories/team/playbook.md is read-only: it is in the read-only memory mounted at /memories/team\n",
    });
    const view = await runMem(["view", "--mounts", file]);
    expect({ code: view.code, out: view.out }).toEqual({
      code: 0,
      out: `${[HEADER, "13B\t/memories", "5B\t/memories/notes.md", "8B\t/memories/team/", "8B\t/memories/team/playbook.md"].join("\n")}\n`,
    });
    const cat = await runMem(["cat", "--mounts", file, "/memories/team/playbook.md"]);
    expect(cat.out).toBe("be kind\n");
  }, 120_000);

  it("names the mount of a bad table, with the usage exit code", async () => {
    const dir = tempDir();
    const file = join(dir, "mounts.json");
    writeFileSync(
      file,
      JSON.stringify({ "/memories": { url: "sqlite:./a.db" }, "/memories/x/": { url: "sqlite:./b.db" } }),
    );
    const run = await runMem(["view", "--mounts", file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the mount "/memories/x/" must not end with a slash');
  }, 120_000);

  it("mem mcp --mounts shows the mounts in the tool's description", async () => {
    const file = mountsFile();
    const client = new Client({ name: "mem-cli-test", version: "0.0.0" });
    const [command = process.execPath, ...args] = memCommandLine(["mcp", "--mounts", file]);
    await client.connect(new StdioClientTransport({ command, args, cwd: PACKAGE_DIR, stderr: "inherit" }), {
      timeout: 120_000,
    });
    try {
      const { tools } = await client.listTools();
      expect(
        tools[0]?.description?.endsWith(
          "\n\nYour memory directory is made of these memories:\n- /memories (read-write)\n- /memories/team (read-only): The team's playbook.",
        ),
      ).toBe(true);
      expect(
        await callMemoryTool(client, { command: "create", path: "/memories/team/x.md", file_text: "x" }),
      ).toEqual({
        isError: true,
        content:
          "Error: The path /memories/team/x.md is read-only: it is in the read-only memory mounted at /memories/team",
      });
    } finally {
      await client.close();
    }
  }, 120_000);
});
