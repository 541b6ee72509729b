import { InMemoryStore, StoreFailureError } from "@mem/core";
import { beforeEach, describe, expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { run, seed, testKey } from "./helpers.js";

const KEY = testKey(1);
const SECRETS = [Buffer.from(KEY).toString("base64"), Buffer.from(KEY).toString("hex")];

let inner: InMemoryStore;
let store: EncryptedStore;

beforeEach(async () => {
  inner = new InMemoryStore();
  store = new EncryptedStore(inner, { key: KEY });
  await seed(store, { "/memories/x": "the original text\n", "/memories/y": "another file\n" });
});

/** Replaces the stored bytes of `path` behind the wrapper's back. */
const tamper = async (path: string, change: (data: Uint8Array) => Uint8Array) => {
  const current = (await inner.read(path))!;
  await inner.write(path, change(current.data.slice()), { ifVersion: current.version });
};

const flip = (offset: number) => (data: Uint8Array) => {
  const at = offset < 0 ? data.length + offset : offset;
  data[at] = (data[at] ?? 0) ^ 0x01;
  return data;
};

/** The exact error result of SPEC §5, and nothing in it that could be key material. */
const expectIntegrityFailure = async (command: Record<string, unknown>, operation: string, path: string) => {
  const result = await run(store, command);
  expect(result.isError).toBe(true);
  expect(result.content).toMatch(
    new RegExp(`^Error: ${operation} failed for ${path}: integrity check failed: `),
  );
  for (const secret of SECRETS) expect(result.content).not.toContain(secret);
  return result.content;
};

describe("tampered ciphertexts fail loudly through the tool", () => {
  const view = { command: "view", path: "/memories/x" };

  it.each([
    ["the magic", 0],
    ["the format version", 4],
    ["the key id", 5],
    ["the nonce", 30],
    ["the first ciphertext byte", 45],
    ["the tag", -1],
  ])("a flipped bit in %s", async (_what, offset) => {
    await tamper("/memories/x", flip(offset));
    await expectIntegrityFailure(view, "view", "/memories/x");
  });

  it("names the failing check precisely", async () => {
    await tamper("/memories/x", flip(45));
    expect(await expectIntegrityFailure(view, "view", "/memories/x")).toBe(
      'Error: view failed for /memories/x: integrity check failed: the ciphertext does not authenticate (it was altered, moved from another path, or encrypted under a different key for id "default")',
    );
    await tamper("/memories/y", flip(0));
    expect((await run(store, { command: "view", path: "/memories/y" })).content).toBe(
      "Error: view failed for /memories/y: integrity check failed: the file is not in the encrypted format",
    );
  });

  it("a truncated ciphertext, by one byte or below the header", async () => {
    await tamper("/memories/x", (d) => d.subarray(0, d.length - 1));
    await expectIntegrityFailure(view, "view", "/memories/x");
    await tamper("/memories/x", (d) => d.subarray(0, 30));
    expect((await run(store, view)).content).toBe(
      "Error: view failed for /memories/x: integrity check failed: the encrypted file is truncated",
    );
    // Sizes come from ciphertext lengths, so a listing notices a file too short to be one.
    await expectIntegrityFailure({ command: "view", path: "/memories" }, "view", "/memories");
  });

  it("a ciphertext copied or swapped to another path", async () => {
    const x = (await inner.read("/memories/x"))!.data;
    const y = (await inner.read("/memories/y"))!.data;
    await tamper("/memories/x", () => y);
    await tamper("/memories/y", () => x);
    await expectIntegrityFailure(view, "view", "/memories/x");
    await expectIntegrityFailure({ command: "view", path: "/memories/y" }, "view", "/memories/y");
    await inner.write("/memories/copy", x, { ifAbsent: true });
    await expectIntegrityFailure({ command: "view", path: "/memories/copy" }, "view", "/memories/copy");
  });

  it("a ciphertext moved by a rename behind the wrapper's back", async () => {
    await inner.rename("/memories/x", "/memories/moved");
    await expectIntegrityFailure({ command: "view", path: "/memories/moved" }, "view", "/memories/moved");
  });

  it("a ciphertext from a store with another context, even under the same key", async () => {
    const otherInner = new InMemoryStore();
    const tenantA = new EncryptedStore(otherInner, { key: KEY, context: "tenant-a" });
    await seed(tenantA, { "/memories/x": "from tenant a\n" });
    expect((await run(tenantA, view)).content).toContain("from tenant a");
    const data = (await otherInner.read("/memories/x"))!.data;
    await tamper("/memories/x", () => data);
    await expectIntegrityFailure(view, "view", "/memories/x");
  });

  it("a file under a key id the keyring does not have", async () => {
    const other = new InMemoryStore();
    const writer = new EncryptedStore(other, { keyring: { keys: { old: testKey(2) }, active: "old" } });
    await seed(writer, { "/memories/x": "written under old\n" });
    const data = (await other.read("/memories/x"))!.data;
    await tamper("/memories/x", () => data);
    expect((await run(store, view)).content).toBe(
      'Error: view failed for /memories/x: integrity check failed: the file is encrypted under key id "old", which is not configured',
    );
  });

  it("a wrong key under a known id is refused before it can touch anything", async () => {
    const wrong = new EncryptedStore(inner, { key: testKey(9) });
    await expect(wrong.ready).rejects.toBeInstanceOf(StoreFailureError);
    const result = await run(wrong, { command: "create", path: "/memories/new", file_text: "x" });
    expect(result).toEqual({
      content:
        'Error: create failed for /memories/new: integrity check failed: key "default" does not match the key this store recorded under that id',
      isError: true,
    });
    expect(await inner.stat("/memories/new")).toBeNull();
  });

  it("a wrong key whose key check was removed still cannot read", async () => {
    await inner.delete("/memories/.mem-encrypted");
    store = new EncryptedStore(inner, { key: testKey(9) });
    await expectIntegrityFailure(view, "view", "/memories/x");
  });

  it("edits of a tampered file fail with the edit's name and change nothing", async () => {
    await tamper("/memories/x", flip(50));
    const before = (await inner.read("/memories/x"))!;
    await expectIntegrityFailure(
      { command: "str_replace", path: "/memories/x", old_str: "original", new_str: "forged" },
      "str_replace",
      "/memories/x",
    );
    await expectIntegrityFailure(
      { command: "insert", path: "/memories/x", insert_line: 0, insert_text: "more\n" },
      "insert",
      "/memories/x",
    );
    await expectIntegrityFailure(
      { command: "rename", old_path: "/memories/x", new_path: "/memories/z" },
      "rename",
      "/memories/x",
    );
    expect((await inner.read("/memories/x"))!.version).toBe(before.version);
    expect(await inner.stat("/memories/z")).toBeNull();
  });

  it("a directory holding a tampered file is not renamed, and the reason names the file", async () => {
    await seed(store, { "/memories/dir/ok": "fine\n", "/memories/dir/sub/bad": "will be altered\n" });
    await tamper("/memories/dir/sub/bad", flip(-3));
    const content = await expectIntegrityFailure(
      { command: "rename", old_path: "/memories/dir", new_path: "/memories/moved" },
      "rename",
      "/memories/dir",
    );
    expect(content).toMatch(
      /^Error: rename failed for \/memories\/dir: integrity check failed: \/memories\/dir\/sub\/bad: the ciphertext does not authenticate/,
    );
    expect(await inner.stat("/memories/moved")).toBeNull();
    expect((await run(store, { command: "view", path: "/memories/dir/ok" })).isError).toBe(false);
  });

  it("throws only StoreFailureError from the store API itself", async () => {
    await tamper("/memories/x", flip(60));
    const error = await store.read("/memories/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreFailureError);
    expect((error as StoreFailureError).reason).toMatch(/^integrity check failed: /);
  });
});
