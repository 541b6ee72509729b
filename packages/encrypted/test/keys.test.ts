import { execFileSync } from "node:child_process";
import { InMemoryStore, StoreFailureError } from "@mem/core";
import { describe, expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { FAST_KDF, InterruptingStore, run, seed, testKey } from "./helpers.js";

const KEY = testKey(1);

describe("key configuration", () => {
  it("accepts raw bytes, standard and URL-safe base64, all as the same key", async () => {
    const inner = new InMemoryStore();
    await seed(new EncryptedStore(inner, { key: KEY }), { "/memories/a": "a" });
    for (const key of [Buffer.from(KEY).toString("base64"), Buffer.from(KEY).toString("base64url")]) {
      expect(
        (await run(new EncryptedStore(inner, { key }), { command: "view", path: "/memories/a" })).isError,
      ).toBe(false);
    }
  });

  it("rejects bad keys with messages that carry no key material", () => {
    const cases: [unknown, RegExp][] = [
      [{ key: KEY.subarray(0, 31) }, /key "default" must be 32 bytes, got 31/],
      [{ key: "c2hvcnQ=" }, /must be 32 bytes encoded as base64; for a passphrase pass \{ passphrase \}/],
      [{ key: "my secret passphrase" }, /for a passphrase pass \{ passphrase \}/],
      [{ key: { passphrase: "" } }, /passphrase of key "default" is empty/],
      [
        { key: KEY, keyring: { keys: { a: KEY }, active: "a" } },
        /EncryptedStore: give exactly one of the options "key" or "keyring"/,
      ],
      [{}, /EncryptedStore: give exactly one of the options "key" or "keyring"/],
      [{ keyring: { keys: { a: KEY }, active: "b" } }, /active key id "b" is not in the keyring/],
      [{ keyring: { keys: { "bad id": KEY }, active: "bad id" } }, /key id "bad id" must be 1-16/],
      [{ keyring: { keys: { "12345678901234567": KEY }, active: "12345678901234567" } }, /must be 1-16/],
      [{ key: KEY, kdf: { opsLimit: 0, memLimit: 8192 } }, /kdf.opsLimit/],
    ];
    for (const [options, message] of cases) {
      const attempt = () => new EncryptedStore(new InMemoryStore(), options as never);
      expect(attempt).toThrow(message);
      const text = String(
        (() => {
          try {
            attempt();
          } catch (e) {
            return (e as Error).message;
          }
        })(),
      );
      expect(text).not.toContain("my secret passphrase");
      expect(text).not.toContain(Buffer.from(KEY).toString("base64"));
    }
  });

  it("copies key bytes, so later changes to the caller's array do not matter", async () => {
    const bytes = testKey(3);
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: bytes });
    bytes.fill(0);
    await seed(store, { "/memories/a": "a" });
    expect(
      (await run(new EncryptedStore(inner, { key: testKey(3) }), { command: "view", path: "/memories/a" }))
        .isError,
    ).toBe(false);
  });
});

describe("passphrase keys (Argon2id)", () => {
  const passphrase = { passphrase: "correct horse battery staple" };

  it("derives the same key in every instance from the salt stored with the data", async () => {
    const inner = new InMemoryStore();
    const first = new EncryptedStore(inner, { key: passphrase, kdf: FAST_KDF });
    await seed(first, { "/memories/a": "secret\n" });
    const record = JSON.parse(
      new TextDecoder().decode((await inner.read("/memories/.mem-encrypted/kdf"))!.data),
    );
    expect(record).toMatchObject({ format: 1, algorithm: "argon2id13", opsLimit: 1, memLimit: 8192 });
    expect(Buffer.from(record.salt, "base64")).toHaveLength(16);
    // The stored cost wins over a later instance's option, or it would derive another key.
    const second = new EncryptedStore(inner, { key: passphrase, kdf: { opsLimit: 2, memLimit: 16384 } });
    expect((await run(second, { command: "view", path: "/memories/a" })).content).toContain("1\tsecret");
  });

  it("gives each store its own salt", async () => {
    const salts = [];
    for (let i = 0; i < 2; i++) {
      const inner = new InMemoryStore();
      await new EncryptedStore(inner, { key: passphrase, kdf: FAST_KDF }).ready;
      salts.push(
        JSON.parse(new TextDecoder().decode((await inner.read("/memories/.mem-encrypted/kdf"))!.data)).salt,
      );
    }
    expect(salts[0]).not.toBe(salts[1]);
  });

  it("agrees on one salt when instances start at the same time", async () => {
    const inner = new InMemoryStore();
    const stores = Array.from(
      { length: 4 },
      () => new EncryptedStore(inner, { key: passphrase, kdf: FAST_KDF }),
    );
    await Promise.all(stores.map((s) => s.ready));
    await seed(stores[0]!, { "/memories/a": "shared\n" });
    for (const store of stores) {
      expect((await run(store, { command: "view", path: "/memories/a" })).isError).toBe(false);
    }
  });

  it("refuses a wrong passphrase at start, with an error result and no change", async () => {
    const inner = new InMemoryStore();
    await seed(new EncryptedStore(inner, { key: passphrase, kdf: FAST_KDF }), { "/memories/a": "a" });
    const wrong = new EncryptedStore(inner, { key: { passphrase: "Tr0ub4dor&3" }, kdf: FAST_KDF });
    await expect(wrong.ready).rejects.toBeInstanceOf(StoreFailureError);
    const result = await run(wrong, { command: "view", path: "/memories/a" });
    expect(result).toEqual({
      content:
        'Error: view failed for /memories/a: integrity check failed: key "default" does not match the key this store recorded under that id',
      isError: true,
    });
    expect(result.content).not.toContain("Tr0ub4dor");
  });

  it("refuses a tampered key-derivation record", async () => {
    const inner = new InMemoryStore();
    await new EncryptedStore(inner, { key: passphrase, kdf: FAST_KDF }).ready;
    const current = (await inner.read("/memories/.mem-encrypted/kdf"))!;
    const json = { format: 1, algorithm: "argon2id13", opsLimit: 1, memLimit: 1e12, salt: "AAAA" };
    await inner.write("/memories/.mem-encrypted/kdf", new TextEncoder().encode(JSON.stringify(json)), {
      ifVersion: current.version,
    });
    const store = new EncryptedStore(inner, { key: passphrase });
    expect((await run(store, { command: "view", path: "/memories" })).content).toBe(
      "Error: view failed for /memories: integrity check failed: the key-derivation record is malformed",
    );
  });
});

describe("readiness", () => {
  it("works when used before `ready` resolves", async () => {
    const store = new EncryptedStore(new InMemoryStore(), { key: { passphrase: "p" }, kdf: FAST_KDF });
    const [created, viewed] = await Promise.all([
      run(store, { command: "create", path: "/memories/early", file_text: "early\n" }),
      run(store, { command: "view", path: "/memories" }),
    ]);
    expect(created).toEqual({ content: "File created successfully at: /memories/early", isError: false });
    expect(viewed.isError).toBe(false);
    await expect(store.ready).resolves.toBeUndefined();
    expect((await run(store, { command: "view", path: "/memories/early" })).content).toContain("1\tearly");
  });

  it("retries a start that failed on a storage outage", async () => {
    const inner = new InterruptingStore();
    inner.interruptAfter(0);
    const store = new EncryptedStore(inner, { key: KEY });
    await expect(store.ready).rejects.toMatchObject({ reason: "connection reset" });
    expect(await run(store, { command: "create", path: "/memories/a", file_text: "" })).toEqual({
      content: "Error: create failed for /memories/a: connection reset",
      isError: true,
    });
    inner.heal();
    expect((await run(store, { command: "create", path: "/memories/a", file_text: "" })).isError).toBe(false);
  });

  it("fails every call after close, and forgets its keys", async () => {
    const store = new EncryptedStore(new InMemoryStore(), { key: KEY });
    await seed(store, { "/memories/a": "a" });
    await store.close();
    expect(await run(store, { command: "view", path: "/memories/a" })).toEqual({
      content: "Error: view failed for /memories/a: the encrypted store is closed",
      isError: true,
    });
  });

  it("never writes with zeroed keys when closed while writes are in flight", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await store.ready;
    const paths = Array.from({ length: 20 }, (_, i) => `/memories/.dir${i}/f`);
    const writes = paths.map((p) => store.write(p, new TextEncoder().encode(p), { ifAbsent: true }));
    await store.close();
    const outcomes = await Promise.allSettled(writes);
    const reader = new EncryptedStore(inner, { key: KEY });
    for (const [i, outcome] of outcomes.entries()) {
      const path = paths[i]!;
      if (outcome.status === "fulfilled") {
        expect(new TextDecoder().decode((await reader.read(path))?.data)).toBe(path);
      } else {
        expect(outcome.reason).toMatchObject({ reason: "the encrypted store is closed" });
        expect(await inner.stat(path)).toBeNull();
      }
    }
    expect(outcomes.some((o) => o.status === "rejected")).toBe(true);
  });

  it("loads libsodium's ESM builds under plain Node too", () => {
    const script = [
      'import sodium from "libsodium-wrappers";',
      'import sumo from "libsodium-wrappers-sumo";',
      "await sodium.ready; await sumo.ready;",
      "console.log(typeof sodium.crypto_aead_xchacha20poly1305_ietf_encrypt, typeof sumo.crypto_pwhash);",
    ].join("\n");
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: new URL("..", import.meta.url),
      encoding: "utf8",
    });
    expect(out.trim()).toBe("function function");
  });
});

describe("readOnly", () => {
  it("starts without writing: no key check, no salt; a recorded key must still match", async () => {
    const inner = new InMemoryStore();
    const key = new Uint8Array(32).fill(3);
    const reader = new EncryptedStore(inner, { key, readOnly: true });
    await reader.ready;
    expect(await inner.files()).toEqual([]);
    const passphrase = new EncryptedStore(inner, {
      key: { passphrase: "pw" },
      kdf: FAST_KDF,
      readOnly: true,
    });
    await expect(passphrase.ready).rejects.toThrow(/no key-derivation record/);
    expect(await inner.files()).toEqual([]);

    const writer = new EncryptedStore(inner, { key });
    await writer.write("/memories/a.md", new TextEncoder().encode("secret\n"), { ifAbsent: true });
    const before = (await inner.files()).map((f) => f.path).sort();
    const wrong = new EncryptedStore(inner, { key: new Uint8Array(32).fill(4), readOnly: true });
    await expect(wrong.ready).rejects.toThrow(/does not match/);
    const right = new EncryptedStore(inner, { key, readOnly: true });
    expect(new TextDecoder().decode((await right.read("/memories/a.md"))?.data)).toBe("secret\n");
    expect((await inner.files()).map((f) => f.path).sort()).toEqual(before);
  });

  it("is a boolean", () => {
    expect(
      () => new EncryptedStore(new InMemoryStore(), { key: new Uint8Array(32), readOnly: "yes" as never }),
    ).toThrow(TypeError);
  });
});
