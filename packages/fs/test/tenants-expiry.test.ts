import { existsSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { FakeClock } from "@mem/conformance";
import { executeCommand } from "@mem/core";
import { FsStore } from "@mem/fs";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/files.js";

const openFds = (): number => readdirSync("/proc/self/fd").length;
const create = (path: string, text: string) => ({ command: "create", path, file_text: text });

describe("FsStore tenants", () => {
  it("keeps each tenant under {root}/.~mem-tenants/{tenant}, out of the unscoped store's reach", async () => {
    const root = join(tempDir(), "memories");
    const store = new FsStore({ root });
    const alice = store.scope("alice");
    await executeCommand(alice, create("/memories/notes/a.md", "hi\n"));
    expect(readFileSync(join(root, ".~mem-tenants", "alice", "notes", "a.md"), "utf8")).toBe("hi\n");
    expect(alice.root).toBe(join(store.root, ".~mem-tenants", "alice"));
    expect(statSync(join(root, ".~mem-tenants")).mode & 0o777).toBe(0o700);
    for (const path of ["/memories/.~mem-tenants", "/memories/.~mem-tenants/alice/notes/a.md"]) {
      expect(await executeCommand(store, { command: "view", path })).toEqual({
        content: `Error: The path ${path} is not allowed: it uses a reserved name`,
        isError: true,
      });
    }
    expect(await store.usage()).toEqual({ files: 0, bytes: 0 });
    expect(await store.stat("/memories/notes")).toBeNull();
    // A nested scope lies inside its parent's tenant directory.
    await executeCommand(alice.scope("project"), create("/memories/x", "1"));
    expect(existsSync(join(root, ".~mem-tenants", "alice", ".~mem-tenants", "project", "x"))).toBe(true);
    expect(await alice.usage()).toEqual({ files: 1, bytes: 3 });
  });

  it("opens no descriptor for a scope: 2,000 scopes leave the process's open files as they were", async () => {
    const store = new FsStore({ root: join(tempDir(), "memories") });
    const before = openFds();
    const scopes = Array.from({ length: 2000 }, (_, i) => store.scope(`tenant-${i}`));
    expect(openFds()).toBe(before);
    await executeCommand(scopes[1999]!, create("/memories/a", "x"));
    expect(openFds()).toBe(before);
  });

  it("refuses a tenants directory that is a symbolic link", () => {
    const base = tempDir();
    const root = join(base, "memories");
    const store = new FsStore({ root });
    symlinkSync(base, join(root, ".~mem-tenants"));
    expect(() => store.scope("alice")).toThrow("symbolic link not followed");
  });
});

describe("FsStore expiry", () => {
  it("keeps the access time as the file's modification time, from the injected clock", async () => {
    const clock = new FakeClock(1_700_000_000_000);
    const root = join(tempDir(), "memories");
    const store = new FsStore({ root, expireAfterSeconds: 60, clock: clock.now });
    await executeCommand(store, create("/memories/a.md", "a\n"));
    expect(statSync(join(root, "a.md")).mtimeMs).toBe(1_700_000_000_000);
    clock.advance(10);
    await executeCommand(store, { command: "view", path: "/memories/a.md" });
    expect(statSync(join(root, "a.md")).mtimeMs).toBe(1_700_000_010_000);
    await store.list("/memories", 2);
    await store.stat("/memories/a.md");
    expect(statSync(join(root, "a.md")).mtimeMs).toBe(1_700_000_010_000);
  });

  it("leaves expired files on disk until a sweep or a change meets them, then removes them and their directories", async () => {
    const clock = new FakeClock();
    const root = join(tempDir(), "memories");
    const store = new FsStore({ root, expireAfterSeconds: 60, clock: clock.now });
    await executeCommand(store, create("/memories/d/e/a.md", "a\n"));
    await executeCommand(store, create("/memories/b.md", "b\n"));
    clock.advance(61);
    expect(await store.stat("/memories/d")).toBeNull();
    expect(existsSync(join(root, "d", "e", "a.md"))).toBe(true);
    await executeCommand(store, create("/memories/d", "now a file\n"));
    expect(readFileSync(join(root, "d"), "utf8")).toBe("now a file\n");
    expect(await store.sweep()).toEqual({ paths: ["/memories/b.md"], bytes: 2 });
    expect(readdirSync(root).filter((n) => !n.startsWith(".~mem-"))).toEqual(["d"]);
  });

  it("scopes share the parent's expiry", async () => {
    const clock = new FakeClock();
    const store = new FsStore({
      root: join(tempDir(), "memories"),
      expireAfterSeconds: 60,
      clock: clock.now,
    });
    const scoped = store.scope("t");
    await executeCommand(scoped, create("/memories/a", "x"));
    clock.advance(61);
    expect(await scoped.sweep()).toEqual({ paths: ["/memories/a"], bytes: 1 });
    expect(() => new FsStore({ root: join(tempDir(), "m"), expireAfterSeconds: -1 })).toThrow(TypeError);
  });
});
