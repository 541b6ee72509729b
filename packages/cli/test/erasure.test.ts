/** `mem tenants`, `mem purge`, `mem sweep --tenants` and `mem history --redact`, on real stores. */
import { readdirSync, readFileSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { executeCommand, type MemoryStore } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext } from "../src/context.js";
import { createProgram } from "../src/program.js";
import { PACKAGE_DIR, runMem } from "./helpers/run-mem.js";
import { freshUrl, type Servers, startServers, withStore } from "./helpers/stores.js";

let servers: Servers;
beforeAll(async () => {
  servers = await startServers();
});
afterAll(async () => {
  await servers?.stop();
});

const mem = (args: string[]) => runMem(args, { env: servers.env });

const scopeOf = (store: MemoryStore, tenant: string): MemoryStore => {
  if (!store.scope) throw new Error("the store has no scope()");
  return store.scope(tenant);
};

const create = async (store: MemoryStore, path: string, text: string): Promise<void> => {
  const result = await executeCommand(store, { command: "create", path, file_text: text });
  if (result.isError) throw new Error(result.content);
};

/** The fs directory of a `fs:` URL. */
const dirOf = (url: string): string => url.slice("fs:".length);

/** Sets the modification time (the access time fs expiry keeps) of every file beneath `dir`. */
const age = (dir: string, at: Date): void => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) age(path, at);
    else utimesSync(path, at, at);
  }
};

const tenantDir = (url: string, id: string): string => join(dirOf(url), ".~mem-tenants", id);

/** Two tenants: alice with a file, a hidden file and two history versions; bob with one file. */
const fillTwo = async (url: string): Promise<void> => {
  await withStore(servers, url, async (store) => {
    await create(store, "/memories/root.md", "root\n");
    const alice = new HistoryStore(scopeOf(store, "alice"));
    await create(alice, "/memories/notes.md", "one\n");
    for (const [from, to] of [
      ["one", "two"],
      ["two", "three"],
    ]) {
      await executeCommand(alice, {
        command: "str_replace",
        path: "/memories/notes.md",
        old_str: from,
        new_str: to,
      });
    }
    await create(alice, "/memories/.secret", "hidden\n");
    await create(scopeOf(store, "bob"), "/memories/b.md", "bob's\n");
  });
};

describe("mem tenants", () => {
  it("prints a table of the tenants in byte order, and the same as JSON", async () => {
    const url = freshUrl(servers, "fs");
    await fillTwo(url);
    age(tenantDir(url, "alice"), new Date("2026-01-02T03:04:05.000Z"));
    age(tenantDir(url, "bob"), new Date("2026-02-03T04:05:06.000Z"));
    const table = await mem(["tenants", url]);
    expect(table.code).toBe(0);
    // alice: notes.md (6 bytes) and .secret (7 bytes), as quotas count them; beside them, what
    // @mem/history keeps in her .mem-history folder (two 4-byte versions, the path they belong to, the
    // running total, the change log's records), never counted as files.
    expect(table.out).toBe(
      [
        "TENANT  FILES  BYTES  HISTORY  LAST ACCESS",
        "alice   2      13B    354B     2026-01-02T03:04:05.000Z",
        "bob     1      6B     0B       2026-02-03T04:05:06.000Z",
        "",
      ].join("\n"),
    );
    // The same figures as mem du of each tenant.
    const du = JSON.parse((await mem(["du", `${url}?tenant=alice`, "--json"])).out) as Record<
      string,
      unknown
    >;
    expect(du).toMatchObject({ files: 2, bytes: 13, historyBytes: 354 });
    const json = await mem(["tenants", url, "--json"]);
    expect(json.code).toBe(0);
    const { tenants } = JSON.parse(json.out) as { tenants: { id: string; files: number; bytes: number }[] };
    expect(tenants.map((t) => t.id)).toEqual(["alice", "bob"]);
    expect(tenants[1]).toEqual({
      id: "bob",
      files: 1,
      bytes: 6,
      historyBytes: 0,
      lastAccess: Date.parse("2026-02-03T04:05:06.000Z"),
    });
  });

  it("du on a store whose files all belong to tenants prints each tenant's count, as mem tenants does", async () => {
    const url = freshUrl(servers, "fs");
    await withStore(servers, url, async (store) => {
      await create(scopeOf(store, "carol"), "/memories/c.md", "carol\n");
      await create(scopeOf(store, "dave"), "/memories/.d.md", "dave!\n");
    });
    const du = await mem(["du", url]);
    expect({ code: du.code, out: du.out }).toEqual({
      code: 0,
      out: [
        "The store's own files: none; its 2 tenant(s) hold (pass ?tenant=ID for one):",
        "  carol  files 1  bytes 6B",
        "  dave  files 1  bytes 6B",
        "",
      ].join("\n"),
    });
    const json = JSON.parse((await mem(["du", url, "--json"])).out) as { tenants: unknown[] };
    expect(json.tenants).toEqual([
      { id: "carol", files: 1, bytes: 6, historyBytes: 0 },
      { id: "dave", files: 1, bytes: 6, historyBytes: 0 },
    ]);
    const listed = JSON.parse((await mem(["tenants", url, "--json"])).out) as { tenants: unknown[] };
    expect(listed.tenants).toMatchObject([
      { id: "carol", files: 1, bytes: 6, historyBytes: 0 },
      { id: "dave", files: 1, bytes: 6, historyBytes: 0 },
    ]);
  });

  it("purge erases the tenant the URL names (?tenant=)", async () => {
    const url = freshUrl(servers, "fs");
    await fillTwo(url);
    const purged = await mem(["purge", `${url}?tenant=bob`, "--yes"]);
    expect({ code: purged.code, out: purged.out, stderr: purged.stderr }).toEqual({
      code: 0,
      out: "Removed 1 file(s), 0 version(s), 6B.\n",
      stderr: "",
    });
    const left = JSON.parse((await mem(["tenants", url, "--json"])).out) as { tenants: { id: string }[] };
    expect(left.tenants.map((t) => t.id)).toEqual(["alice"]);
  });

  it("says so when there are none, and fails in one line on a store that does not exist", async () => {
    const url = freshUrl(servers, "redis");
    await withStore(servers, url, (store) => create(store, "/memories/a.md", "a\n"));
    const none = await mem(["tenants", url]);
    expect(none.code).toBe(0);
    expect(none.out).toBe("No tenants.\n");
    const missing = await mem(["tenants", `fs:${join(servers.tempDir(), "nothing")}`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toContain("no store at");
  });
});

describe("a store that keeps no figures per tenant (S3)", () => {
  it("counts its tenants all the same, shows - for the last access, and sweep --tenants keeps them and says why", async () => {
    const url = freshUrl(servers, "s3");
    await withStore(servers, url, async (store) => {
      await create(scopeOf(store, "carol"), "/memories/c.md", "c\n");
    });
    const table = await mem(["tenants", url]);
    expect(table.code).toBe(0);
    expect(table.out).toBe("TENANT  FILES  BYTES  HISTORY  LAST ACCESS\ncarol   1      2B     0B       -\n");
    const swept = await mem(["sweep", url, "--tenants", "--expire-after", "1"]);
    expect(swept.code).toBe(0);
    expect(swept.out).toBe("Purged 0 tenant(s) not accessed for 1 s.\n");
    expect(swept.stderr).toBe("1 tenant(s) kept: this store does not record when they were last accessed.\n");
    const purged = await mem(["purge", url, "--tenant", "carol", "--yes", "--json"]);
    expect(JSON.parse(purged.out)).toEqual({ dryRun: false, files: 1, bytes: 2, versions: 0 });
    expect((await mem(["tenants", url])).out).toBe("No tenants.\n");
  });
});

describe("mem purge", () => {
  it("refuses without --yes, shows what would go with --dry-run, then erases only that tenant", async () => {
    const url = freshUrl(servers, "fs");
    await fillTwo(url);
    const refused = await mem(["purge", url, "--tenant", "alice"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      "mem: Purging cannot be undone: add --yes (or see what would go with --dry-run).\n",
    );

    const dry = await mem(["purge", url, "--tenant", "alice", "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.out)).toEqual({ dryRun: true, files: 2, bytes: 13, versions: 2 });
    const dryText = await mem(["purge", url, "--tenant", "alice", "--dry-run"]);
    expect(dryText.out).toBe("Would remove 2 file(s), 2 version(s), 13B.\n");
    expect(readdirSync(tenantDir(url, "alice"))).toContain("notes.md");

    const done = await mem(["purge", url, "--tenant", "alice", "--yes"]);
    expect(done.code).toBe(0);
    expect(done.out).toBe("Removed 2 file(s), 2 version(s), 13B.\n");
    expect(readdirSync(join(dirOf(url), ".~mem-tenants"))).toEqual(["bob"]);
    const left = JSON.parse((await mem(["tenants", url, "--json"])).out) as { tenants: { id: string }[] };
    expect(left.tenants.map((t) => t.id)).toEqual(["bob"]);
    expect((await mem(["cat", `${url}?tenant=bob`, "/memories/b.md"])).out).toBe("bob's\n");
    expect((await mem(["cat", url, "/memories/root.md"])).out).toBe("root\n");

    // Again, and a tenant that never was: nothing to remove, success.
    for (const id of ["alice", "never-was"]) {
      const again = await mem(["purge", url, "--tenant", id, "--yes", "--json"]);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.out)).toEqual({ dryRun: false, files: 0, bytes: 0, versions: 0 });
    }
  });

  it("refuses a bad tenant id, both or neither of --tenant and --all, in one line with exit 2", async () => {
    const url = freshUrl(servers, "fs");
    await fillTwo(url);
    for (const args of [
      ["--tenant", "../bob", "--yes"],
      ["--tenant", "a/b", "--yes"],
      ["--tenant", "bob", "--all", "--yes"],
      ["--yes"],
    ]) {
      const result = await mem(["purge", url, ...args]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(result.stderr).toMatch(/^mem: /);
    }
    expect(readdirSync(join(dirOf(url), ".~mem-tenants")).sort()).toEqual(["alice", "bob"]);
  });

  it("--all --yes erases every tenant and the store's own files; without --yes it refuses", async () => {
    const url = freshUrl(servers, "redis");
    await fillTwo(url);
    expect((await mem(["purge", url, "--all"])).code).toBe(2);
    const dry = JSON.parse((await mem(["purge", url, "--all", "--dry-run", "--json"])).out);
    expect(dry).toEqual({ dryRun: true, files: 4, bytes: 24, versions: 2 });
    const done = await mem(["purge", url, "--all", "--yes", "--json"]);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.out)).toEqual({ ...dry, dryRun: false });
    expect((await mem(["tenants", url])).out).toBe("No tenants.\n");
    await withStore(servers, url, async (store) => {
      expect(await store.files?.()).toEqual([]);
      for (const id of ["alice", "bob"]) expect(await scopeOf(store, id).files?.()).toEqual([]);
    });
  });
});

describe("mem sweep --tenants", () => {
  it("purges the tenants whose newest access is older than --expire-after, and only those", async () => {
    const url = freshUrl(servers, "fs");
    await fillTwo(url);
    const old = new Date(Date.now() - 2 * 86_400_000);
    age(tenantDir(url, "alice"), old);
    const dry = await mem(["sweep", url, "--tenants", "--expire-after", "86400", "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.out)).toEqual({
      dryRun: true,
      tenants: [{ id: "alice", files: 2, bytes: 13, versions: 2 }],
      unknownLastAccess: 0,
    });
    expect(readdirSync(join(dirOf(url), ".~mem-tenants")).sort()).toEqual(["alice", "bob"]);
    const done = await mem(["sweep", url, "--tenants", "--expire-after", "86400"]);
    expect(done.code).toBe(0);
    expect(done.out).toBe(
      "alice\t2 file(s), 2 version(s), 13B\nPurged 1 tenant(s) not accessed for 86400 s.\n",
    );
    expect(readdirSync(join(dirOf(url), ".~mem-tenants"))).toEqual(["bob"]);
    expect((await mem(["cat", url, "/memories/root.md"])).out).toBe("root\n");
  });

  it("on Redis, judges tenants by the access times expiry keeps", async () => {
    const url = freshUrl(servers, "redis");
    const expiring = { env: servers.env, expireAfterSeconds: 3600 };
    const { openStore } = await import("../src/index.js");
    const first = await openStore(url, expiring);
    await create(scopeOf(first, "stale"), "/memories/s.md", "stale\n");
    await first.close?.();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const second = await openStore(url, expiring);
    await create(scopeOf(second, "fresh"), "/memories/f.md", "fresh\n");
    await second.close?.();
    // In this process: a child's start-up would take longer than the gap between the two tenants.
    let out = "";
    const ctx = createContext({
      stdout: {
        write: (c) => {
          out += String(c);
        },
      },
      stderr: { write: () => true },
      env: servers.env,
      cwd: PACKAGE_DIR,
    });
    await createProgram(ctx).parseAsync([
      "node",
      "mem",
      "sweep",
      url,
      "--tenants",
      "--expire-after",
      "0.3",
      "--json",
    ]);
    expect(ctx.exitCode).toBe(0);
    expect(JSON.parse(out)).toEqual({
      dryRun: false,
      tenants: [{ id: "stale", files: 1, bytes: 6, versions: 0 }],
      unknownLastAccess: 0,
    });
    const left = JSON.parse((await mem(["tenants", url, "--json"])).out) as { tenants: { id: string }[] };
    expect(left.tenants.map((t) => t.id)).toEqual(["fresh"]);
  });

  it("--dry-run goes with --tenants only", async () => {
    const url = freshUrl(servers, "fs");
    await fillTwo(url);
    const result = await mem(["sweep", url, "--expire-after", "10", "--dry-run"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("mem: --dry-run goes with --tenants.\n");
  });
});

describe("mem history --redact", () => {
  it("removes one version's content, keeps a tombstone, and restore of it fails clearly", async () => {
    const url = freshUrl(servers, "fs");
    await withStore(servers, url, async (store) => {
      const kept = new HistoryStore(store);
      await create(kept, "/memories/a.md", "secret v1\n");
      await executeCommand(kept, {
        command: "str_replace",
        path: "/memories/a.md",
        old_str: "v1",
        new_str: "v2",
      });
      await executeCommand(kept, {
        command: "str_replace",
        path: "/memories/a.md",
        old_str: "v2",
        new_str: "v3",
      });
    });
    const listed = JSON.parse((await mem(["history", url, "/memories/a.md", "--json"])).out) as {
      versions: { id: string; size: number }[];
    };
    expect(listed.versions.map((v) => v.size)).toEqual([10, 10]);
    const [, oldest] = listed.versions;

    const redacted = await mem(["history", url, "/memories/a.md", "--redact", oldest!.id, "--actor", "dpo"]);
    expect(redacted.code).toBe(0);
    expect(redacted.out).toBe(
      `Redacted version ${oldest!.id} of /memories/a.md: its content is gone, a tombstone remains.\n`,
    );
    const after = JSON.parse((await mem(["history", url, "/memories/a.md", "--json"])).out) as {
      versions: { id: string; size: number; redacted?: { by?: string } }[];
    };
    expect(after.versions.map((v) => v.id)).toEqual(listed.versions.map((v) => v.id));
    expect(after.versions[1]).toMatchObject({ id: oldest!.id, size: 0, redacted: { by: "dpo" } });
    const table = await mem(["history", url, "/memories/a.md"]);
    expect(table.out.split("\n")[1]).toMatch(/\tredacted \d{4}-\d\d-\d\dT\S+Z by dpo$/);

    // No byte of the redacted content is left in the directory.
    const texts: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else texts.push(readFileSync(path, "latin1"));
      }
    };
    walk(dirOf(url));
    expect(texts.filter((t) => t.includes("secret v1"))).toEqual([]);

    const restore = await mem(["restore", url, "/memories/a.md", oldest!.id]);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toBe(
      `mem: Version ${oldest!.id} of /memories/a.md was redacted; it cannot be restored.\n`,
    );
    // Redacting again is done already; an unknown version is one line, exit 1.
    expect((await mem(["history", url, "/memories/a.md", "--redact", oldest!.id])).code).toBe(0);
    const unknown = await mem(["history", url, "/memories/a.md", "--redact", "nope"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('mem: /memories/a.md has no version "nope"; see mem history.\n');
    const stray = await mem(["history", url, "/memories/a.md", "--actor", "dpo"]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toBe("mem: --actor goes with --redact.\n");
  });
});
