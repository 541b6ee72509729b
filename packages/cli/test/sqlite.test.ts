import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runMem } from "./helpers/run-mem.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mem-cli-sqlite-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("mem on a SQLite file", () => {
  it("runs, views, lists, counts and sweeps through the real entry point", async () => {
    const url = `sqlite:${join(tempDir(), "memory.db")}`;
    const run = await runMem([
      "run",
      url,
      JSON.stringify({ command: "create", path: "/memories/notes/a.md", file_text: "one\ntwo\n" }),
    ]);
    expect({ code: run.code, out: run.out.trim(), stderr: run.stderr }).toEqual({
      code: 0,
      out: "File created successfully at: /memories/notes/a.md",
      stderr: "",
    });
    const view = await runMem(["view", url, "/memories/notes/a.md"]);
    expect(view.out).toBe(
      "Here's the content of /memories/notes/a.md with line numbers:\n     1\tone\n     2\ttwo\n",
    );
    const tree = await runMem(["tree", url]);
    expect({ code: tree.code, out: tree.out }).toEqual({
      code: 0,
      out: "/memories  8B\n└── notes/  8B\n    └── a.md  8B\n1 file, 8B (hidden ones included)\n",
    });
    const du = await runMem(["du", url, "--json"]);
    expect(JSON.parse(du.out)).toMatchObject({ files: 1, bytes: 8 });
    const sweep = await runMem(["sweep", url, "--expire-after", "3600"]);
    expect(sweep.code).toBe(0);
  });
});
