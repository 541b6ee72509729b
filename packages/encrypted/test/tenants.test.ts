import { FakeClock } from "@mem/conformance";
import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { describe, expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { FAST_KDF, testKey } from "./helpers.js";

const create = (path: string, text: string) => ({ command: "create", path, file_text: text });

describe("EncryptedStore tenants", () => {
  it("binds the tenant into every ciphertext: a file copied to another tenant fails to open", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: testKey(1), context: "app" });
    const alice = store.scope("alice");
    const bob = store.scope("bob");
    await executeCommand(alice, create("/memories/secret.md", "alice's secret\n"));
    const ciphertext = (await inner.scope("alice").read("/memories/secret.md"))!.data;
    await inner.scope("bob").write("/memories/secret.md", ciphertext, { ifAbsent: true });
    expect(await executeCommand(bob, { command: "view", path: "/memories/secret.md" })).toEqual({
      content: expect.stringMatching(
        /^Error: view failed for \/memories\/secret\.md: integrity check failed/,
      ),
      isError: true,
    });
    // The same bytes under the unscoped store fail too, and so does a tenant id spliced into the context.
    await inner.write("/memories/secret.md", ciphertext, { ifAbsent: true });
    expect((await executeCommand(store, { command: "view", path: "/memories/secret.md" })).isError).toBe(
      true,
    );
    const spliced = new EncryptedStore(inner.scope("alice"), { key: testKey(1), context: "app\u0000alicx" });
    expect((await executeCommand(spliced, { command: "view", path: "/memories/secret.md" })).isError).toBe(
      true,
    );
    // Alice still reads her own file.
    expect((await executeCommand(alice, { command: "view", path: "/memories/secret.md" })).content).toContain(
      "alice's secret",
    );
  });

  it("derives a passphrase key once for all scopes, and a scope's close keeps the parent's keys", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: { passphrase: "correct horse" }, kdf: FAST_KDF });
    await store.ready;
    const scopes = Array.from({ length: 200 }, (_, i) => store.scope(`t${i}`));
    await Promise.all(scopes.map((s, i) => executeCommand(s, create("/memories/a", `tenant ${i}`))));
    // No salt or key check in a tenant's own namespace: the parent's keys serve every scope.
    for (const tenant of ["t0", "t199"]) expect((await inner.scope(tenant).usage()).files).toBe(1);
    expect(await inner.stat("/memories/.mem-encrypted/kdf")).toEqual({
      kind: "file",
      size: expect.any(Number),
    });
    await scopes[0]!.close();
    expect((await executeCommand(scopes[1]!, { command: "view", path: "/memories/a" })).content).toContain(
      "tenant 1",
    );
    await executeCommand(store, create("/memories/b", "root"));
    expect((await executeCommand(store, { command: "view", path: "/memories/b" })).isError).toBe(false);
  });

  it("refuses scope() over a store without tenants, and invalid tenant ids", () => {
    const plain: MemoryStore = new InMemoryStore();
    Object.defineProperty(plain, "scope", { value: undefined });
    expect(() => new EncryptedStore(plain, { key: testKey(1) }).scope("a")).toThrow(TypeError);
    expect(() => new EncryptedStore(new InMemoryStore(), { key: testKey(1) }).scope("../a")).toThrow(
      TypeError,
    );
  });
});

describe("EncryptedStore usage and expiry", () => {
  it("reports plaintext sizes, leaving its own bookkeeping out", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: { passphrase: "p" }, kdf: FAST_KDF });
    await executeCommand(store, create("/memories/a.md", "12345"));
    await executeCommand(store, create("/memories/.hidden", "123"));
    expect(await store.usage()).toEqual({ files: 2, bytes: 8 });
    expect((await inner.usage()).files).toBeGreaterThan(2);
  });

  it("keeps its bookkeeping alive while in use, so a restart with a passphrase still opens the files", async () => {
    const clock = new FakeClock();
    const expiry = { expireAfterSeconds: 100, clock: clock.now };
    const inner = new InMemoryStore(expiry);
    const options = { key: { passphrase: "p" }, kdf: FAST_KDF, ...expiry };
    const store = new EncryptedStore(inner, options);
    await executeCommand(store, create("/memories/a.md", "first\n"));
    for (let i = 0; i < 10; i++) {
      clock.advance(30);
      await executeCommand(store, { command: "view", path: "/memories/a.md" });
    }
    // 300 s after the salt and key check were written: they are alive because the store kept using them.
    const restarted = new EncryptedStore(inner, options);
    expect((await executeCommand(restarted, { command: "view", path: "/memories/a.md" })).content).toContain(
      "first",
    );
    expect(await restarted.sweep()).toEqual({ paths: [], bytes: 0 });
  });
});
