/**
 * Backups that round-trip: `mem export --all-tenants` of a store holding hidden files, an application's
 * marker (`.mem-demo`), history's versions with actors and times, a redaction's tombstone and tenants,
 * then `mem import` into a new store, and `mem verify --against` proves it the same; on fs, SQLite,
 * Redis, PostgreSQL, S3 and an encrypted store.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { executeCommand, type MemoryStore } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { type PostgresServer, startPostgres } from "@mem/testkit";
import { Header } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMem } from "./helpers/run-mem.js";
import { freshUrl, SAMPLE, type Servers, type StoreKind, startServers, withStore } from "./helpers/stores.js";

let servers: Servers;
// Two servers: a PostgreSQL store is a database's table, and the restored store needs a new one.
let postgres: PostgresServer[] = [];
beforeAll(async () => {
  [servers, ...postgres] = await Promise.all([startServers(), startPostgres(), startPostgres()]);
});
afterAll(async () => {
  await Promise.all([servers?.stop(), ...postgres.map((p) => p.stop())]);
});

const mem = (args: string[]) => runMem(args, { env: servers.env });

let databases = 0;
/** A fresh store of `kind`; PostgreSQL's come from the two servers in turn. */
const fresh = async (kind: StoreKind | "postgres"): Promise<string> =>
  kind === "postgres" ? postgres[databases++ % postgres.length]!.url : freshUrl(servers, kind);

const text = (s: string) => new TextEncoder().encode(s);

const run = async (store: MemoryStore, input: Record<string, unknown>, actor?: string) => {
  const result = await executeCommand(store, input, actor === undefined ? {} : { actor });
  if (result.isError) throw new Error(result.content);
};

/**
 * The store a new user would want back whole: SAMPLE's files (hidden, node_modules, binary, Unicode),
 * the demo's `.mem-demo` marker, two versions of notes.md by two actors, one of them redacted, and
 * tenants alice (with a version of her own) and bob.
 */
const fillRich = (url: string) =>
  withStore(servers, url, async (store) => {
    for (const [path, data] of SAMPLE) await store.write(path, data, { ifAbsent: true });
    await store.write("/memories/.mem-demo", text("demo marker\n"), { ifAbsent: true });
    const history = new HistoryStore(store);
    const edit = { command: "str_replace", path: "/memories/notes.md" };
    await run(history, { ...edit, old_str: "tea", new_str: "coffee" }, "agent-1");
    await run(history, { ...edit, old_str: "coffee", new_str: "cocoa" }, "agent-2");
    const [newest] = await history.versions("/memories/notes.md");
    await history.redact("/memories/notes.md", newest!.id, { by: "operator" });
    const alice = new HistoryStore(store.scope!("alice"));
    await run(alice, { command: "create", path: "/memories/a.md", file_text: "one\n" });
    await run(
      alice,
      { command: "str_replace", path: "/memories/a.md", old_str: "one", new_str: "two" },
      "alice",
    );
    await store.scope!("bob").write("/memories/.hidden/b.md", text("bob\n"), { ifAbsent: true });
  });

/** What `mem history --json` reports, for the store and a tenant: ids, times, actors, tombstones. */
const versionsOf = async (url: string) => {
  const at = (u: string, path: string) => mem(["history", u, path, "--json"]);
  const own = await at(url, "/memories/notes.md");
  const alice = await at(`${url}${url.includes("?") ? "&" : "?"}tenant=alice`, "/memories/a.md");
  expect(own.code).toBe(0);
  expect(alice.code).toBe(0);
  return [JSON.parse(own.out), JSON.parse(alice.out)];
};

describe("mem export --all-tenants → mem import → mem verify --against", () => {
  const kinds = ["fs", "sqlite", "redis", "postgres", "s3", "encrypted+fs"] as const;
  for (const kind of kinds) {
    it(`${kind}: restores files, markers, versions, tombstones and tenants exactly`, async () => {
      const source = await fresh(kind);
      await fillRich(source);
      const archive = join(servers.tempDir(), "backup.tar");
      const exported = await mem(["export", source, archive, "--all-tenants", "--json"]);
      expect({ code: exported.code, stderr: exported.stderr }).toEqual({ code: 0, stderr: "" });
      // SAMPLE, the marker, history's three files of notes.md (path, a version, a tombstone... and the
      // redacted version's gone), its byte total, alice's two files of history and her file, bob's file.
      const summary = JSON.parse(exported.out) as { files: number; tenants: number };
      expect(summary.tenants).toBe(2);
      expect(summary.files).toBeGreaterThan(SAMPLE.size + 6);

      const target = await fresh(kind);
      const imported = await mem(["import", target, archive]);
      expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: "" });
      expect(imported.out).toMatch(new RegExp(`^Imported ${summary.files} files, `));

      const verified = await mem(["verify", target, "--against", archive]);
      expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 0, stderr: "" });
      expect(verified.out).toMatch(
        new RegExp(
          `^✓ ${summary.files} file\\(s\\), .*, [1-9]\\d* of them history's: the store holds exactly`,
        ),
      );
      expect(await versionsOf(target)).toEqual(await versionsOf(source));
      // The model cannot address the marker (a reserved name), but the application finds it again.
      const marker = await withStore(servers, target, (store) => store.read("/memories/.mem-demo"));
      expect(new TextDecoder().decode(marker?.data)).toBe("demo marker\n");

      // A change the archive does not hold is found, and named.
      await withStore(servers, `${target}${target.includes("?") ? "&" : "?"}tenant=bob`, (bob) =>
        bob.write("/memories/new.md", text("new\n"), { ifAbsent: true }),
      );
      const differs = await mem(["verify", target, "--against", archive]);
      expect(differs.code).toBe(1);
      expect(differs.out).toContain("✗ not in the archive: /memories/new.md (tenant bob)");
    });
  }

  it("copy carries what export and import carry: the restored store and the copy verify against one archive", async () => {
    const source = await fresh("fs");
    await fillRich(source);
    const archive = join(servers.tempDir(), "backup.tar");
    expect((await mem(["export", source, archive, "--all-tenants"])).code).toBe(0);
    const copied = await fresh("sqlite");
    const copy = await mem(["copy", source, copied, "--all-tenants"]);
    expect({ code: copy.code, stderr: copy.stderr }).toEqual({ code: 0, stderr: "" });
    const verified = await mem(["verify", copied, "--against", archive]);
    expect({ code: verified.code, out: verified.out }).toMatchObject({ code: 0 });
    expect(verified.out).toContain("the store holds exactly");
  });
});

describe("mem export and the archive", () => {
  it("refuses to replace an existing archive without --force, and replaces it with --force", async () => {
    const source = await fresh("fs");
    await fillRich(source);
    const archive = join(servers.tempDir(), "backup.tar");
    writeFileSync(archive, "precious\n");
    const refused = await mem(["export", source, archive]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`mem: ${archive} already exists: pass --force to replace it.\n`);
    expect(readFileSync(archive, "utf8")).toBe("precious\n");
    const forced = await mem(["export", source, archive, "--force"]);
    expect(forced.code).toBe(0);
    expect(readFileSync(archive).subarray(0, 16).toString()).toBe("mem-archive.json");
  });

  it("starts with a versioned manifest, and an archive of a newer format is refused before anything is written", async () => {
    const source = await fresh("fs");
    await fillRich(source);
    const archive = join(servers.tempDir(), "backup.tar");
    expect((await mem(["export", source, archive])).code).toBe(0);
    const bytes = readFileSync(archive);
    const size = Number.parseInt(bytes.subarray(124, 136).toString().trim(), 8);
    const manifest = JSON.parse(bytes.subarray(512, 512 + size).toString()) as Record<string, unknown>;
    expect(manifest).toEqual({ format: "mem-archive", version: 1, allTenants: false, tenants: [] });

    const newer = join(servers.tempDir(), "newer.tar");
    writeFileSync(newer, tarOf([["mem-archive.json", '{"format":"mem-archive","version":2,"tenants":[]}']]));
    const target = join(servers.tempDir(), "target");
    const refused = await mem(["import", `fs:${target}`, newer]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("the archive is of format 2, newer than this mem reads (1)");
    expect(existsSync(target)).toBe(false);
  });

  it("refuses the encryption's bookkeeping in an archive: it never travels", async () => {
    const archive = join(servers.tempDir(), "keys.tar");
    writeFileSync(
      archive,
      tarOf([
        ["memories/fine.md", "fine\n"],
        ["memories/.mem-encrypted/keys/default", "x"],
      ]),
    );
    const target = join(servers.tempDir(), "target");
    const refused = await mem(["import", `fs:${target}`, archive]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      '"memories/.mem-encrypted/keys/default" is not a valid memory path (.mem-encrypted is bookkeeping that never travels)',
    );
    expect(existsSync(target)).toBe(false);
  });
});

/** A tar of regular files, built entry by entry. */
const tarOf = (entries: [string, string][]): Buffer => {
  const blocks: Buffer[] = [];
  for (const [path, data] of entries) {
    const body = Buffer.from(data);
    const header = new Header({ path, mode: 0o600, size: body.length, mtime: new Date(0), type: "File" });
    const block = Buffer.alloc(512);
    header.encode(block);
    blocks.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
};
