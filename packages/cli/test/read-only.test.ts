/**
 * A read never writes: every reading command leaves the medium byte for byte as it was, key material
 * included, and an `encrypted+` read of a store that was never encrypted turns nothing into one.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMem } from "./helpers/run-mem.js";
import { type Servers, seed, startServers, withStore } from "./helpers/stores.js";

let servers: Servers;
beforeAll(async () => {
  servers = await startServers();
});
afterAll(async () => {
  await servers?.stop();
});

const mem = (args: string[], env: Record<string, string> = {}) =>
  runMem(args, { env: { ...servers.env, ...env } });

/** Every entry beneath `dir`, directories included, with the bytes of each file. */
const snapshot = (dir: string): Map<string, string> => {
  const all = new Map<string, string>();
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const relative = path.slice(dir.length);
      if (statSync(path).isDirectory()) {
        all.set(`${relative}/`, "");
        walk(path);
      } else all.set(relative, readFileSync(path).toString("base64"));
    }
  };
  walk(dir);
  return all;
};

const WRONG_KEY = Buffer.alloc(32, 9).toString("base64");

/** The reading commands, each as arguments after the URL; `export` writes its archive outside the store. */
const readCommands = (url: string, outside: string): string[][] => [
  ["tree", url],
  ["view", url],
  ["view", url, "/memories/notes.md"],
  ["cat", url, "/memories/notes.md"],
  ["du", url],
  ["verify", url],
  ["export", url, join(outside, `backup-${Math.random().toString(36).slice(2)}.tar`)],
  ["history", url, "/memories/notes.md"],
  ["tenants", url],
];

/** A store with files, a hidden file, a tenant and history versions. */
const fill = async (url: string): Promise<void> => {
  await seed(servers, url);
  await withStore(servers, url, async (store) => {
    const history = new HistoryStore(store);
    await executeCommand(history, {
      command: "str_replace",
      path: "/memories/notes.md",
      old_str: "tea",
      new_str: "coffee",
    });
    const alice = store.scope?.("alice");
    if (!alice) throw new Error("the store has no scopes");
    await alice.write("/memories/a.md", new TextEncoder().encode("alice\n"), { ifAbsent: true });
  });
};

describe("reading commands write nothing", () => {
  for (const kind of ["fs", "encrypted+fs", "sqlite"] as const) {
    it(`${kind}: tree, view, cat, du, verify, export, history and tenants leave the medium byte-identical`, async () => {
      const dir = join(servers.tempDir(), "memory");
      const outside = servers.tempDir();
      const url =
        kind === "sqlite"
          ? `sqlite:${join(dir, "memory.db")}`
          : `${kind === "fs" ? "" : "encrypted+"}fs:${dir}`;
      mkdirSync(dir, { recursive: true });
      await fill(url);
      const before = snapshot(dir);
      // SQLite keeps everything in its one file.
      expect(before.size).toBeGreaterThan(kind === "sqlite" ? 0 : 3);
      for (const args of readCommands(url, outside)) {
        const run = await mem(args);
        expect({ args: args[0], code: run.code, stderr: run.stderr }).toEqual({
          args: args[0],
          code: 0,
          stderr: expect.any(String),
        });
        expect(snapshot(dir), `mem ${args[0]} changed the store`).toEqual(before);
      }
      // A wrong key is refused, and leaves no trace either.
      if (kind === "encrypted+fs") {
        const wrong = await mem(["tree", url], { MEMORY_KEY: WRONG_KEY });
        expect(wrong.code).toBe(1);
        expect(wrong.stderr).toContain('key "default" does not match');
        expect(snapshot(dir)).toEqual(before);
      }
    });
  }
});

describe("encrypted+ over a store that was never encrypted", () => {
  it("a plain store read with a wrong key is refused, gains no key material, and opens as before", async () => {
    const dir = join(servers.tempDir(), "repro");
    await seed(servers, `fs:${dir}`);
    const before = snapshot(dir);
    for (const args of readCommands(`encrypted+fs:${dir}`, servers.tempDir())) {
      const run = await mem(args, { MEMORY_KEY: WRONG_KEY });
      expect(run.code, `mem ${args[0]}`).toBe(1);
      expect(run.stderr).toContain("holds plain (unencrypted) memory");
      expect(snapshot(dir)).toEqual(before);
    }
    expect(existsSync(join(dir, ".mem-encrypted"))).toBe(false);
    const plain = await mem(["tree", `fs:${dir}`]);
    expect(plain.code).toBe(0);
    expect(plain.out).toContain("notes.md");
  });

  it("writing through encrypted+ into a plain store is refused and changes nothing", async () => {
    const dir = join(servers.tempDir(), "plain");
    await seed(servers, `fs:${dir}`);
    const before = snapshot(dir);
    const run = await mem([
      "run",
      `encrypted+fs:${dir}`,
      JSON.stringify({ command: "create", path: "/memories/new.md", file_text: "x\n" }),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("holds plain (unencrypted) memory");
    expect(snapshot(dir)).toEqual(before);
  });

  it("an empty directory read through encrypted+ answers as a missing store and stays empty", async () => {
    const dir = join(servers.tempDir(), "empty");
    mkdirSync(dir);
    for (const args of readCommands(`encrypted+fs:${dir}`, servers.tempDir())) {
      const run = await mem(args);
      expect(run.code, `mem ${args[0]}`).toBe(1);
      expect(run.stderr).toContain("no store at");
      expect(readdirSync(dir)).toEqual([]);
    }
    // Writing is the explicit act that makes it an encrypted store.
    const write = await mem([
      "run",
      `encrypted+fs:${dir}`,
      JSON.stringify({ command: "create", path: "/memories/a.md", file_text: "secret\n" }),
    ]);
    expect(write.code).toBe(0);
    expect(existsSync(join(dir, ".mem-encrypted", "keys", "default"))).toBe(true);
    const read = await mem(["cat", `encrypted+fs:${dir}`, "/memories/a.md"]);
    expect(read.out).toBe("secret\n");
  });
});
