import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand, type MemoryStore, memorySystemPrompt } from "@mem/core";
import { afterEach, describe, expect, it } from "vitest";
import { openMounts, StoreUrlError } from "../src/index.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mem-mounts-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const HEADER =
  "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";
const run = async (store: MemoryStore, input: Record<string, unknown>) =>
  (await executeCommand(store, input)).content;

/** A mount table file in a folder of its own, read from another working directory. */
const tableFile = (table: unknown): { dir: string; file: string } => {
  const dir = tempDir();
  mkdirSync(join(dir, "config"));
  const file = join(dir, "config", "mounts.json");
  writeFileSync(file, typeof table === "string" ? table : JSON.stringify(table));
  return { dir, file };
};

describe("openMounts", () => {
  it("opens every store of the file, relative paths against the file's folder, with access and instructions", async () => {
    const { dir, file } = tableFile({
      "/memories": { url: "sqlite:./me.db" },
      "/memories/team": { url: "fs:./team", access: "read_only", instructions: "The team's playbook." },
    });
    mkdirSync(join(dir, "config", "team"));
    writeFileSync(join(dir, "config", "team", "playbook.md"), "rules\n");
    const memory = await openMounts("config/mounts.json", { cwd: dir, env: {} });
    try {
      expect(await run(memory, { command: "create", path: "/memories/me.md", file_text: "mine" })).toBe(
        "File created successfully at: /memories/me.md",
      );
      expect(await run(memory, { command: "view", path: "/memories" })).toBe(
        [
          HEADER,
          "10B\t/memories",
          "4B\t/memories/me.md",
          "6B\t/memories/team/",
          "6B\t/memories/team/playbook.md",
        ].join("\n"),
      );
      expect(await run(memory, { command: "delete", path: "/memories/team/playbook.md" })).toBe(
        "Error: The path /memories/team/playbook.md is read-only: it is in the read-only memory mounted at /memories/team",
      );
      expect(memorySystemPrompt({ mounts: memory }).split("\n").slice(-3)).toEqual([
        "Your memory directory is made of these memories:",
        "- /memories (read-write)",
        "- /memories/team (read-only): The team's playbook.",
      ]);
    } finally {
      await memory.close?.();
    }
    expect(existsSync(join(dir, "config", "me.db"))).toBe(true);
    expect(existsSync(join(dir, "team"))).toBe(false);
    expect(file).toContain("config");
  });

  it("makes a mount per-tenant with {tenant}: in ?tenant= (one store, scoped) or in a path (one store each)", async () => {
    const { dir } = tableFile({
      "/memories": { url: "sqlite:./users/{tenant}.db" },
      "/memories/notes": { url: "sqlite:./notes.db?tenant={tenant}" },
      "/memories/team": { url: "fs:./team", access: "read_only" },
    });
    mkdirSync(join(dir, "config", "users"));
    const alice = await openMounts("config/mounts.json", { cwd: dir, env: {}, tenant: "alice" });
    const bob = await openMounts("config/mounts.json", { cwd: dir, env: {}, tenant: "bob" });
    try {
      await run(alice, { command: "create", path: "/memories/a.md", file_text: "alice" });
      await run(alice, { command: "create", path: "/memories/.hidden.md", file_text: "h" });
      await run(alice, { command: "create", path: "/memories/notes/n.md", file_text: "alice's note" });
      expect(await run(bob, { command: "view", path: "/memories/a.md" })).toBe(
        "The path /memories/a.md does not exist. Please provide a valid path.",
      );
      expect(await run(bob, { command: "view", path: "/memories/notes/n.md" })).toBe(
        "The path /memories/notes/n.md does not exist. Please provide a valid path.",
      );
      expect(await run(alice, { command: "view", path: "/memories/notes/n.md" })).toContain(
        "1\talice's note",
      );
      expect(existsSync(join(dir, "config", "users", "alice.db"))).toBe(true);
      expect(await alice.purge?.()).toEqual({ files: 3, bytes: 18 });
      expect(await run(alice, { command: "view", path: "/memories/.hidden.md" })).toBe(
        "The path /memories/.hidden.md does not exist. Please provide a valid path.",
      );
      expect(await run(alice, { command: "view", path: "/memories" })).toBe(
        [HEADER, "0B\t/memories", "0B\t/memories/notes/", "0B\t/memories/team/"].join("\n"),
      );
    } finally {
      await alice.close?.();
      await bob.close?.();
    }
  });

  it("lists the tenants of {tenant} mounts named by file or directory, from the names in their folder", async () => {
    const { dir, file } = tableFile({
      "/memories": { url: "sqlite:./users/{tenant}.db" },
      "/memories/home": { url: "fs:./homes/h-{tenant}" },
      "/memories/team": { url: "fs:./team", access: "read_only" },
    });
    const memory = await openMounts(file, { cwd: dir, env: {} });
    const [alice, bob, carol] = ["alice", "bob", "carol"].map((t) => memory.scope?.(t) as MemoryStore);
    try {
      expect(await memory.tenants?.()).toEqual({ tenants: [] });
      mkdirSync(join(dir, "config", "users"));
      expect(
        await run(carol as MemoryStore, { command: "create", path: "/memories/a.md", file_text: "c" }),
      ).toBe("File created successfully at: /memories/a.md");
      await run(bob as MemoryStore, { command: "create", path: "/memories/home/b.md", file_text: "b" });
      await run(bob as MemoryStore, { command: "create", path: "/memories/b.md", file_text: "b" });
      await run(alice as MemoryStore, {
        command: "create",
        path: "/memories/home/a.md",
        file_text: "a",
      });
      // Names that do not fit, or are no tenant id, are no tenants.
      writeFileSync(join(dir, "config", "users", "notes.txt"), "x");
      writeFileSync(join(dir, "config", "users", "bad name.db"), "x");
      mkdirSync(join(dir, "config", "users", "dir.db"));
      writeFileSync(join(dir, "config", "homes", "h-file"), "x");
      mkdirSync(join(dir, "config", "homes", "other"));
      expect(await memory.tenants?.()).toEqual({
        tenants: [{ id: "alice" }, { id: "bob" }, { id: "carol" }],
      });
      expect(await memory.tenants?.({ limit: 1 })).toEqual({ tenants: [{ id: "alice" }], next: "alice" });
      expect(await memory.tenants?.({ after: "alice", limit: 1 })).toEqual({
        tenants: [{ id: "bob" }],
        next: "bob",
      });
      expect(await memory.tenants?.({ after: "bob" })).toEqual({ tenants: [{ id: "carol" }] });
    } finally {
      for (const scope of [alice, bob, carol]) await scope?.close?.();
      await memory.close?.();
    }
  });

  it("gives each mount the quota and guard its entry sets", async () => {
    const { dir, file } = tableFile({
      "/memories": { url: "sqlite:./me.db", guard: { detectors: { email: true } } },
      "/memories/scratch": { url: "fs:./scratch", quota: { maxFiles: 1 }, guard: false },
    });
    const memory = await openMounts(file, { cwd: dir, env: {} });
    try {
      const text = "ann@example.com\n";
      expect(await run(memory, { command: "create", path: "/memories/a.md", file_text: text })).toBe(
        "Error: Refused to write /memories/a.md: line 1 looks like an email address. Do not store secrets or personal data in memory.",
      );
      expect(await run(memory, { command: "create", path: "/memories/scratch/a.md", file_text: text })).toBe(
        "File created successfully at: /memories/scratch/a.md",
      );
      expect(await run(memory, { command: "create", path: "/memories/scratch/b.md", file_text: "b" })).toBe(
        "Error: Cannot create /memories/scratch/b.md: memory already holds 1 files, the limit is 1. Delete or merge files first.",
      );
      expect(await run(memory, { command: "create", path: "/memories/b.md", file_text: "b" })).toBe(
        "File created successfully at: /memories/b.md",
      );
    } finally {
      await memory.close?.();
    }
  });

  const bad: [unknown, RegExp][] = [
    ["{", /is not valid JSON/],
    [[], /must hold a JSON object/],
    [{ "/memories": { url: "sqlite:./a.db", acess: "read_only" } }, /unknown field "acess"/],
    [{ "/memories": {} }, /the mount "\/memories" needs a url/],
    [{ "/memories/a": { url: "sqlite:./a.db" } }, /must mount \/memories/],
    [
      { "/memories": { url: "sqlite:./a.db" }, "/memories/x": { url: "sqlite:./b.db", access: "rw" } },
      /"\/memories\/x" has an unknown access/,
    ],
    [{ "/memories": { url: "nope:./a" } }, /Unknown store URL scheme "nope:"/],
    [{ "/memories": { url: "sqlite:./a.db", quota: { maxFiles: -1 } } }, /"\/memories" has a bad quota/],
    [{ "/memories": { url: "sqlite:./a.db", guard: { mode: "hide" } } }, /"\/memories" has a bad guard/],
  ];
  for (const [table, message] of bad) {
    it(`refuses ${JSON.stringify(table)}`, async () => {
      const { dir } = tableFile(table);
      const opening = openMounts("config/mounts.json", { cwd: dir, env: {} });
      await expect(opening).rejects.toThrow(StoreUrlError);
      await expect(openMounts("config/mounts.json", { cwd: dir, env: {} })).rejects.toThrow(message);
    });
  }

  it("says when the file is missing", async () => {
    await expect(openMounts("nowhere.json", { cwd: tempDir() })).rejects.toThrow(
      "Mount table nowhere.json: does not exist",
    );
  });
});
