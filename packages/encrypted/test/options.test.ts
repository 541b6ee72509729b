import { executeCommand, InMemoryStore, StoreFailureError } from "@mem/core";
import { describe, expect, it } from "vitest";
import { EncryptedStore, type EncryptedStoreOptions } from "../src/index.js";
import { headerKeyId, testKey } from "./helpers.js";

const make = (inner: unknown, options: unknown) => () =>
  new EncryptedStore(inner as InMemoryStore, options as EncryptedStoreOptions);

describe("EncryptedStore options", () => {
  it("rejects bad options with a TypeError naming the option and what is allowed", () => {
    const inner = new InMemoryStore();
    const key = testKey(1);
    expect(make(undefined, { key })).toThrow(
      new TypeError("EncryptedStore: the inner store must be a MemoryStore"),
    );
    expect(make(inner, undefined)).toThrow(
      new TypeError("EncryptedStore: options must be an object, not undefined"),
    );
    expect(make(inner, { keyring: "k" })).toThrow(
      new TypeError('EncryptedStore: option "keyring" must be an object'),
    );
    expect(make(inner, { key, context: 42 })).toThrow(
      new TypeError('EncryptedStore: option "context" must be a string'),
    );
    expect(make(inner, { key, kdf: 3 })).toThrow(
      new TypeError('EncryptedStore: option "kdf" must be an object'),
    );
  });
});

describe("EncryptedStore.check", () => {
  it("passes with the recorded key and fails fast with another one", async () => {
    const inner = new InMemoryStore();
    const first = new EncryptedStore(inner, { key: testKey(1) });
    await expect(first.check()).resolves.toBeUndefined();
    const wrong = new EncryptedStore(inner, { key: testKey(2) });
    await expect(wrong.check()).rejects.toThrow(/key "default" does not match the key this store recorded/);
  });

  it("fails fast when the inner store's own check fails", async () => {
    const inner = new InMemoryStore();
    const broken = Object.assign(inner, {
      check: async () => {
        throw new StoreFailureError("connection refused");
      },
    });
    await expect(new EncryptedStore(broken, { key: testKey(1) }).check()).rejects.toThrow(StoreFailureError);
  });
});

// The steps of the README's "From one key to a keyring", exactly.
describe("moving from a single key to a keyring", () => {
  it("rotates a store first created with `key:` as the README shows", async () => {
    const inner = new InMemoryStore();
    const oldKey = testKey(1);
    const newKey = testKey(2);

    // Before: one key, recorded under the id "default".
    const store = new EncryptedStore(inner, { key: oldKey });
    await executeCommand(store, { command: "create", path: "/memories/notes.md", file_text: "kept\n" });
    await executeCommand(store, { command: "create", path: "/memories/.hidden", file_text: "also kept\n" });
    await store.close();

    // Rotation: the old key stays under "default", the new one becomes active.
    const rotating = new EncryptedStore(inner, {
      keyring: { keys: { default: oldKey, "2025": newKey }, active: "2025" },
    });
    const report = await rotating.rotate();
    await rotating.close();
    expect(report.rotated).toBeGreaterThanOrEqual(2);

    // Afterwards the old key can leave the keyring.
    const rotated = new EncryptedStore(inner, { keyring: { keys: { "2025": newKey }, active: "2025" } });
    await expect(rotated.check()).resolves.toBeUndefined();
    expect(headerKeyId((await inner.read("/memories/notes.md"))!.data)).toBe("2025");
    expect(await executeCommand(rotated, { command: "view", path: "/memories/notes.md" })).toEqual({
      content: "Here's the content of /memories/notes.md with line numbers:\n     1\tkept",
      isError: false,
    });
    expect((await executeCommand(rotated, { command: "view", path: "/memories/.hidden" })).content).toContain(
      "also kept",
    );
    await rotated.close();
  });
});
