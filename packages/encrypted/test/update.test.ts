import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { headerKeyId, InterruptingStore, run, seed, testKey } from "./helpers.js";

const KEY = testKey(1);
const encoder = new TextEncoder();
const text = (data: Uint8Array | undefined) => (data ? new TextDecoder().decode(data) : undefined);

let dir: string;
let inner: FsStore;
let store: EncryptedStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "mem-encrypted-update-"));
  inner = new FsStore({ root: join(dir, "memories") });
  store = new EncryptedStore(inner, { key: KEY });
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("update delegates to the inner store's atomic update", () => {
  it("exists exactly when the inner store has one", () => {
    expect(typeof store.update).toBe("function");
    expect(new EncryptedStore(new InMemoryStore(), { key: KEY }).update).toBeUndefined();
    expect(new EncryptedStore(new InterruptingStore(), { key: KEY }).update).toBeUndefined();
  });

  it("hands the plaintext to change and stores the result re-encrypted with a fresh nonce", async () => {
    await seed(store, { "/memories/a.md": "one\n" });
    const before = (await inner.read("/memories/a.md"))!.data;
    const seen: string[] = [];
    const found = await store.update!("/memories/a.md", (current) => {
      seen.push(text(current)!);
      return encoder.encode("one\ntwo\n");
    });
    expect(found).toBe(true);
    expect(seen).toEqual(["one\n"]);
    const after = (await inner.read("/memories/a.md"))!.data;
    expect(text(after)).not.toContain("two");
    expect(Buffer.from(after.subarray(21, 45)).equals(Buffer.from(before.subarray(21, 45)))).toBe(false);
    expect(text((await store.read("/memories/a.md"))?.data)).toBe("one\ntwo\n");
    expect(await store.stat("/memories/a.md")).toEqual({ kind: "file", size: 8 });
  });

  it("resolves false without calling change when no file is there, and writes nothing for null", async () => {
    await seed(store, { "/memories/d/a.md": "keep\n" });
    let calls = 0;
    const change = () => {
      calls++;
      return null;
    };
    expect(await store.update!("/memories/missing.md", change)).toBe(false);
    expect(await store.update!("/memories/d", change)).toBe(false);
    expect(calls).toBe(0);
    const version = (await inner.read("/memories/d/a.md"))!.version;
    expect(await store.update!("/memories/d/a.md", change)).toBe(true);
    expect(calls).toBe(1);
    expect((await inner.read("/memories/d/a.md"))!.version).toBe(version);
  });

  it("encrypts under the active key, bound to the file's path", async () => {
    await seed(store, { "/memories/a.md": "a\n", "/memories/b.md": "b\n" });
    const rotating = new EncryptedStore(inner, {
      keyring: { keys: { default: KEY, k2: testKey(2) }, active: "k2" },
    });
    await rotating.update!("/memories/a.md", (current) => Uint8Array.from([...current, 0x21]));
    expect(headerKeyId((await inner.read("/memories/a.md"))!.data)).toBe("k2");
    expect(text((await rotating.read("/memories/a.md"))?.data)).toBe("a\n!");
    // The new ciphertext does not open at another path.
    const moved = (await inner.read("/memories/a.md"))!.data;
    const b = (await inner.read("/memories/b.md"))!;
    await inner.write("/memories/b.md", moved, { ifVersion: b.version });
    await expect(rotating.read("/memories/b.md")).rejects.toMatchObject({
      reason: expect.stringMatching(/^integrity check failed: the ciphertext does not authenticate/),
    });
  });

  it("is what core's edits use, and a tampered file fails the edit without writing", async () => {
    await seed(store, { "/memories/a.md": "alpha\nbeta\n" });
    expect(
      await run(store, { command: "str_replace", path: "/memories/a.md", old_str: "beta", new_str: "gamma" }),
    ).toMatchObject({ isError: false });
    expect(
      await run(store, { command: "insert", path: "/memories/a.md", insert_line: 0, insert_text: "top" }),
    ).toEqual({ content: "The file /memories/a.md has been edited.", isError: false });
    expect(text((await store.read("/memories/a.md"))?.data)).toBe("top\nalpha\ngamma\n");
    await inner.update("/memories/a.md", (data) => {
      const forged = data.slice();
      forged[50] = (forged[50] ?? 0) ^ 1;
      return forged;
    });
    const version = (await inner.read("/memories/a.md"))!.version;
    expect(
      (await run(store, { command: "str_replace", path: "/memories/a.md", old_str: "top", new_str: "x" }))
        .content,
    ).toMatch(/^Error: str_replace failed for \/memories\/a.md: integrity check failed: /);
    expect((await inner.read("/memories/a.md"))!.version).toBe(version);
  });

  it("edits a file still bound to its former path while a directory rename is unfinished", async () => {
    await seed(store, { "/memories/d/a.md": "before\n" });
    // As a rename cut off after the inner move would leave it: journaled, moved, not yet re-encrypted.
    const journaling = new InterruptingStore(inner);
    const renaming = new EncryptedStore(journaling, { key: KEY });
    await renaming.ready;
    journaling.interruptAfter(2); // the journal entry and the inner move
    await expect(renaming.rename("/memories/d", "/memories/e")).rejects.toMatchObject({
      reason: "connection reset",
    });
    expect(await inner.stat("/memories/d")).toBeNull();
    const found = await store.update!("/memories/e/a.md", (current) => {
      expect(text(current)).toBe("before\n");
      return encoder.encode("after\n");
    });
    expect(found).toBe(true);
    // Re-encrypted for its new path: it opens there with the journal gone.
    await inner.delete("/memories/.mem-encrypted/renames");
    const fresh = new EncryptedStore(inner, { key: KEY });
    expect(text((await fresh.read("/memories/e/a.md"))?.data)).toBe("after\n");
  });
});
