import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand, ForwardingStore, InMemoryStore } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { afterEach, describe, expect, it } from "vitest";
import { countStore, NoStoreError, openStore, StoreSetupError } from "../src/index.js";
import { scopeTo } from "../src/open.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mem-open-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const KEY = Buffer.alloc(32, 9).toString("base64");

describe("openStore", () => {
  it("opens a relative fs directory against the given cwd", async () => {
    const cwd = tempDir();
    const store = await openStore("fs:./notes", { cwd, env: {} });
    await executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "hi\n" });
    await store.close?.();
    expect(readFileSync(join(cwd, "notes", "a.txt"), "utf8")).toBe("hi\n");
  });

  it("encrypts with the key from MEMORY_KEY and refuses to start without it", async () => {
    const cwd = tempDir();
    await expect(openStore("encrypted+fs:./s", { cwd, env: {} })).rejects.toThrow(/set MEMORY_KEY/);
    const store = await openStore("encrypted+fs:./s", { cwd, env: { MEMORY_KEY: KEY } });
    await executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "secret\n" });
    await store.close?.();
    expect(readFileSync(join(cwd, "s", "a.txt")).includes(Buffer.from("secret"))).toBe(false);
    const again = await openStore("encrypted+fs:./s", { cwd, env: { MEMORY_KEY: KEY } });
    expect((await executeCommand(again, { command: "view", path: "/memories/a.txt" })).content).toContain(
      "secret",
    );
    await again.close?.();
  });
});

describe("openStore with readOnly", () => {
  const entries = (dir: string): string[] => readdirSync(dir, { recursive: true }).map(String).sort();

  it("reads an empty store through encrypted+ as a missing one, writing no key material", async () => {
    const dir = tempDir();
    const opening = openStore(`encrypted+fs:${dir}`, { readOnly: true, env: { MEMORY_KEY: KEY } });
    await expect(opening).rejects.toBeInstanceOf(NoStoreError);
    expect(entries(dir)).toEqual([]);
  });

  it("refuses a plain store through encrypted+, reading or writing, and leaves it as it was", async () => {
    const dir = tempDir();
    const plain = await openStore(`fs:${dir}`, { env: {} });
    await executeCommand(plain, { command: "create", path: "/memories/a.md", file_text: "plain\n" });
    await plain.close?.();
    const before = entries(dir);
    for (const readOnly of [true, false]) {
      await expect(openStore(`encrypted+fs:${dir}`, { readOnly, env: { MEMORY_KEY: KEY } })).rejects.toThrow(
        /holds plain \(unencrypted\) memory/,
      );
    }
    expect(entries(dir)).toEqual(before);
  });

  it("refuses a wrong key without writing, and writes no key check for a key id the store never used", async () => {
    const dir = tempDir();
    const store = await openStore(`encrypted+fs:${dir}`, { env: { MEMORY_KEY: KEY } });
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "secret\n" });
    await store.close?.();
    const before = entries(dir);
    const wrong = Buffer.alloc(32, 1).toString("base64");
    await expect(
      openStore(`encrypted+fs:${dir}`, { readOnly: true, env: { MEMORY_KEY: wrong } }),
    ).rejects.toThrow(/does not match/);
    const other = await openStore(`encrypted+fs:${dir}`, {
      readOnly: true,
      env: { MEMORY_KEY: `other:${wrong},default:${KEY}` },
    });
    expect(new TextDecoder().decode((await other.read("/memories/a.md"))?.data)).toBe("secret\n");
    await other.close?.();
    expect(entries(dir)).toEqual(before);
  });
});

describe("openStore and the bookkeeping a store holds", () => {
  const create = { command: "create", path: "/memories/a.md", file_text: "one\n" };
  const edit = { command: "str_replace", path: "/memories/a.md", old_str: "one", new_str: "two" };

  it("keeps versions in a store that holds history, hidden from the model", async () => {
    const dir = tempDir();
    const first = await openStore(`fs:${dir}?history`, { env: {} });
    expect(first).toBeInstanceOf(HistoryStore);
    await executeCommand(first, create);
    await executeCommand(first, edit);
    await first.close?.();
    // Opened plainly now, as `mem mcp fs:./store` does: still wrapped, still keeping versions.
    const again = await openStore(`fs:${dir}`, { env: {} });
    expect(again).toBeInstanceOf(HistoryStore);
    const listing = await executeCommand(again, { command: "view", path: "/memories" });
    expect(listing.content).not.toContain(".mem-history");
    const peek = await executeCommand(again, { command: "view", path: "/memories/.mem-history" });
    expect(peek.isError).toBe(true);
    await executeCommand(again, {
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "two",
      new_str: "3",
    });
    const versions = await (again as HistoryStore).versions("/memories/a.md");
    expect(versions).toHaveLength(2);
    await again.close?.();
  });

  it("wraps with { history: true } and leaves a store without versions as it is", async () => {
    const dir = tempDir();
    const plain = await openStore(`fs:${dir}`, { env: {} });
    expect(plain).not.toBeInstanceOf(HistoryStore);
    await plain.close?.();
    const kept = await openStore(`fs:${dir}`, { env: {}, history: true });
    expect(kept).toBeInstanceOf(HistoryStore);
    await kept.close?.();
  });

  it("keeps versions of one tenant inside that tenant, and of an encrypted store encrypted", async () => {
    const dir = tempDir();
    const env = { MEMORY_KEY: KEY };
    const first = await openStore(`encrypted+fs:${dir}?tenant=bob&history`, { env });
    await executeCommand(first, create);
    await executeCommand(first, edit);
    await first.close?.();
    const again = await openStore(`encrypted+fs:${dir}?tenant=bob`, { env });
    expect(again).toBeInstanceOf(HistoryStore);
    expect(await (again as HistoryStore).versions("/memories/a.md")).toHaveLength(1);
    await again.close?.();
    // History is the store's from the moment it was turned on: another tenant keeps versions too.
    const other = await openStore(`encrypted+fs:${dir}?tenant=eve`, { env });
    expect(other).toBeInstanceOf(HistoryStore);
    expect(await (other as HistoryStore).versions("/memories/a.md")).toEqual([]);
    await other.close?.();
  });

  it("makes a store a history store when history is turned on, before any version: every tenant, every opener", async () => {
    const cwd = tempDir();
    const url = "sqlite:./team.db";
    const first = await openStore(`${url}?tenant=alice&history`, { cwd, env: {} });
    await executeCommand(first, create);
    await first.close?.();
    for (const text of ["two", "3"]) {
      const later = await openStore(`${url}?tenant=alice`, { cwd, env: {} });
      expect(later).toBeInstanceOf(HistoryStore);
      const from = text === "two" ? "one" : "two";
      const result = await executeCommand(later, { ...edit, old_str: from, new_str: text });
      expect(result.isError).toBe(false);
      await later.close?.();
    }
    const alice = await openStore(`${url}?tenant=alice`, { cwd, env: {} });
    const kept = await (alice as HistoryStore).versions("/memories/a.md");
    expect(kept.map((v) => v.size)).toEqual([4, 4]);
    await alice.close?.();
    // Another tenant, and the store itself, opened without ?history: history from their first edit.
    for (const other of [`${url}?tenant=bob`, url]) {
      const store = await openStore(other, { cwd, env: {} });
      expect(store).toBeInstanceOf(HistoryStore);
      await executeCommand(store, create);
      await executeCommand(store, edit);
      expect(await (store as HistoryStore).versions("/memories/a.md")).toHaveLength(1);
      await store.close?.();
    }
    // The marker is bookkeeping: no tenant, no file the model sees.
    const root = await openStore(url, { cwd, env: {} });
    const page = await root.tenants?.();
    expect(page?.tenants.map((t) => t.id)).toEqual(["alice", "bob"]);
    const view = await executeCommand(root, { command: "view", path: "/memories" });
    expect(view.content).not.toContain("mem-history");
    await root.close?.();
  });

  it("marks the whole fs store, and a read-only open with history writes nothing", async () => {
    const dir = tempDir();
    const reader = await openStore(`fs:${dir}?history`, { env: {}, create: false }).catch(() => null);
    await reader?.close?.();
    const plain = await openStore(`fs:${dir}?tenant=carol`, { env: {} });
    expect(plain).not.toBeInstanceOf(HistoryStore);
    await plain.close?.();
    const on = await openStore(`fs:${dir}?tenant=carol&history`, { env: {} });
    await on.close?.();
    expect(existsSync(join(dir, ".mem-history", "enabled"))).toBe(true);
    const later = await openStore(`fs:${dir}?tenant=dave`, { env: {} });
    expect(later).toBeInstanceOf(HistoryStore);
    await later.close?.();
  });

  it("refuses a store holding encrypted files opened without encrypted+, rather than serve ciphertext", async () => {
    const dir = tempDir();
    const sealed = await openStore(`encrypted+fs:${dir}`, { env: { MEMORY_KEY: KEY } });
    await executeCommand(sealed, create);
    await sealed.close?.();
    const error = await openStore(`fs:${dir}`, { env: {} }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(StoreSetupError);
    expect((error as Error).message).toBe(
      `directory ${dir} holds encrypted memory: open it with an encrypted+ URL and its key in MEMORY_KEY.`,
    );
  });

  it("with create: false, creates nothing and says there is no store", async () => {
    const dir = tempDir();
    const error = await openStore("fs:./missing", { cwd: dir, env: {}, create: false }).catch(
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(NoStoreError);
    expect((error as Error).message).toBe("no store at ./missing");
    expect(existsSync(join(dir, "missing"))).toBe(false);
    const store = await openStore("fs:.", { cwd: dir, env: {}, create: false });
    await store.close?.();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("with check: true, fails at opening when the store cannot work", async () => {
    const url = "redis://app:hunter2@127.0.0.1:1/x";
    const unchecked = await openStore(url, { env: {}, bookkeeping: false });
    await unchecked.close?.();
    const error = await openStore(url, { env: {}, bookkeeping: false, check: true }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).not.toContain("hunter2");
  });
});

describe("openStore with expireAfterSeconds", () => {
  it("gives the encrypted wrapper the expiry too, so its bookkeeping stays alive while the store is used", async () => {
    const dir = tempDir();
    // Real time (openStore takes no clock): the limit is 20 times the pause between reads, so that only
    // a machine stalled for seconds between two reads could let the file expire.
    const limitSeconds = 3;
    const store = await openStore(`encrypted+fs:${dir}`, {
      env: { MEMORY_KEY: KEY },
      expireAfterSeconds: limitSeconds,
    });
    await store.write("/memories/a.md", new TextEncoder().encode("a"), { ifAbsent: true });
    // Used for longer than the limit: each read refreshes the file, and the wrapper its key check.
    const started = Date.now();
    let lastRead = 0;
    let reads = 0;
    while (Date.now() - started < limitSeconds * 1000 + 500) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      lastRead = Date.now();
      expect(await store.read("/memories/a.md")).not.toBeNull();
      reads++;
    }
    expect(reads).toBeGreaterThan(1);
    // Touched while in use: the wrapper refreshes its key check at most every quarter of the limit, so the
    // last touch is within a quarter of the limit of the last read, long after the check was first written
    // (file timestamps are coarse: a few ms of slack).
    const keyCheck = statSync(join(dir, ".mem-encrypted", "keys", "default")).mtimeMs;
    expect(keyCheck).toBeGreaterThanOrEqual(lastRead - (limitSeconds * 1000) / 4 - 20);
    expect(keyCheck).toBeGreaterThan(started + (limitSeconds * 1000) / 2);
    await store.close?.();
  });
});

describe("scopeTo", () => {
  it("explains that a store without scopes cannot take ?tenant=, and closes it", async () => {
    let closed = 0;
    const store = new (class extends ForwardingStore {
      override async close() {
        closed++;
      }
    })(new InMemoryStore());
    await expect(scopeTo(store, "alice", "directory ./t")).rejects.toThrow(
      new StoreSetupError(
        "Store URL: ?tenant= needs a store with tenant scopes, and this one (directory ./t) has none.",
      ),
    );
    expect(closed).toBe(1);
  });

  it("returns the scope, whose close also closes the store it came from", async () => {
    const closed: string[] = [];
    const tenants: string[] = [];
    class Scoped extends ForwardingStore {
      readonly #name: string;
      constructor(name: string) {
        super(new InMemoryStore());
        this.#name = name;
      }
      scope(tenant: string) {
        tenants.push(tenant);
        return new Scoped(`${this.#name}/${tenant}`);
      }
      override async close() {
        closed.push(this.#name);
      }
      name() {
        return this.#name; // reads a private field: fails unless bound to the scope itself
      }
    }
    const scope = (await scopeTo(new Scoped("root"), "alice", "x")) as Scoped;
    expect(tenants).toEqual(["alice"]);
    expect(scope.name()).toBe("root/alice");
    await executeCommand(scope, { command: "create", path: "/memories/a.txt", file_text: "hi\n" });
    await scope.close();
    expect(closed).toEqual(["root/alice", "root"]);
  });
});

describe("countStore", () => {
  it("counts what quotas count, hidden files included, and history's bytes beside, opened either way", async () => {
    const dir = tempDir();
    const store = await openStore(`fs:${dir}?history`, { env: {} });
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "one\n" });
    await executeCommand(store, { command: "create", path: "/memories/.h.md", file_text: "hidden\n" });
    await executeCommand(store, {
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "one",
      new_str: "two",
    });
    const counted = await countStore(store);
    await store.close?.();
    expect(counted).toMatchObject({ files: 2, bytes: 11, complete: true });
    expect(counted.historyBytes).toBeGreaterThanOrEqual(4);
    // The same figures from the store opened without its history wrapper, as backups open it.
    const raw = await openStore(`fs:${dir}`, { env: {}, bookkeeping: "unwrapped", readOnly: true });
    expect(await countStore(raw)).toEqual(counted);
    await raw.close?.();
  });
});
