import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { describeStore, parseStoreUrl } from "../src/store-url/parse.js";
import { runMem } from "./run-mem.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mem-cli-sqlite-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const KEY = Buffer.alloc(32, 5).toString("base64");

describe("sqlite: store URLs", () => {
  it("reads a file path, relative or absolute, and refuses an empty one or a query", () => {
    expect(parseStoreUrl("sqlite:./memory.db").backend).toEqual({ kind: "sqlite", file: "./memory.db" });
    expect(parseStoreUrl("sqlite:/var/lib/m.db").backend).toEqual({ kind: "sqlite", file: "/var/lib/m.db" });
    expect(parseStoreUrl("sqlite://tmp/m.db").backend).toEqual({ kind: "sqlite", file: "tmp/m.db" });
    expect(() => parseStoreUrl("sqlite:")).toThrow(/needs a file/);
    expect(() => parseStoreUrl("sqlite:./m.db?mode=ro")).toThrow(/takes no query other than \?tenant=/);
    expect(describeStore(parseStoreUrl("encrypted+sqlite:./m.db?tenant=bob"))).toBe(
      "SQLite database ./m.db, encrypted, tenant bob",
    );
  });

  it("opens a relative file against the cwd, with tenants and encryption", async () => {
    const cwd = tempDir();
    const store = await openStore("sqlite:./memory.db?tenant=alice", { cwd, env: {} });
    await executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "hi\n" });
    await store.close?.();
    expect(existsSync(join(cwd, "memory.db"))).toBe(true);
    const other = await openStore("sqlite:./memory.db?tenant=bob", { cwd, env: {} });
    expect(await other.read("/memories/a.txt")).toBeNull();
    await other.close?.();
    const secret = await openStore("encrypted+sqlite:./memory.db", { cwd, env: { MEMORY_KEY: KEY } });
    await executeCommand(secret, { command: "create", path: "/memories/s.txt", file_text: "secret\n" });
    expect((await executeCommand(secret, { command: "view", path: "/memories/s.txt" })).content).toContain(
      "secret",
    );
    await secret.close?.();
  });
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
      out: "/memories  8B\n└── notes/  8B\n    └── a.md  8B\n",
    });
    const du = await runMem(["du", url, "--json"]);
    expect(JSON.parse(du.out)).toMatchObject({ files: 1, bytes: 8 });
    const sweep = await runMem(["sweep", url, "--expire-after", "3600"]);
    expect(sweep.code).toBe(0);
  });
});
