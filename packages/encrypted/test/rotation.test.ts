import { describe, expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { FAST_KDF, headerKeyId, InterruptingStore, run, seed, testKey } from "./helpers.js";

const FILES: Record<string, string> = {
  "/memories/a.md": "a\n",
  "/memories/dir/b.md": "b\n",
  "/memories/dir/deep/er/c.md": "c\n",
  "/memories/.hidden": "hidden\n",
  "/memories/dir/node_modules/n.js": "n\n",
  "/memories/.config/settings": "s\n",
};
const BOOKKEEPING = ["/memories/.mem-encrypted/unlisted"];

const keyIds = async (inner: InterruptingStore) =>
  Promise.all(
    [...Object.keys(FILES), ...BOOKKEEPING].map(async (p) => headerKeyId((await inner.read(p))!.data)),
  );

const readsAll = async (store: EncryptedStore) => {
  for (const [path, content] of Object.entries(FILES)) {
    expect(await run(store, { command: "view", path })).toEqual({
      content: `Here's the content of ${path} with line numbers:\n     1\t${content.trimEnd()}`,
      isError: false,
    });
  }
};

const setup = async () => {
  const inner = new InterruptingStore();
  const old = new EncryptedStore(inner, { keyring: { keys: { k1: testKey(1) }, active: "k1" } });
  await seed(old, FILES);
  const rotating = new EncryptedStore(inner, {
    keyring: { keys: { k1: testKey(1), k2: testKey(2) }, active: "k2" },
  });
  await rotating.ready;
  return { inner, rotating };
};

describe("key rotation", () => {
  it("re-encrypts every file, hidden and node_modules ones and the bookkeeping included", async () => {
    const { inner, rotating } = await setup();
    expect(new Set(await keyIds(inner))).toEqual(new Set(["k1"]));
    expect(await rotating.rotate()).toEqual({ rotated: Object.keys(FILES).length + 1, current: 0 });
    expect(new Set(await keyIds(inner))).toEqual(new Set(["k2"]));
    expect(await rotating.rotate()).toEqual({ rotated: 0, current: Object.keys(FILES).length + 1 });
    // The old key can now leave the keyring.
    await readsAll(new EncryptedStore(inner, { keyring: { keys: { k2: testKey(2) }, active: "k2" } }));
  });

  it("can be interrupted at any file and resumed, every file readable throughout", async () => {
    const { inner, rotating } = await setup();
    inner.interruptAfter(3);
    await expect(rotating.rotate()).rejects.toMatchObject({ reason: "connection reset" });
    const mixed = await keyIds(inner);
    expect(mixed.filter((id) => id === "k2")).toHaveLength(3);
    expect(mixed.filter((id) => id === "k1")).toHaveLength(mixed.length - 3);
    await readsAll(rotating);
    // Until rotation completes, a store without k1 cannot read what is still under it.
    const k2Only = new EncryptedStore(inner, { keyring: { keys: { k2: testKey(2) }, active: "k2" } });
    const k1File = Object.keys(FILES).find((_, i) => mixed[i] === "k1")!;
    expect((await run(k2Only, { command: "view", path: k1File })).content).toBe(
      `Error: view failed for ${k1File}: integrity check failed: the file is encrypted under key id "k1", which is not configured`,
    );
    inner.heal();
    expect(await rotating.rotate()).toEqual({ rotated: mixed.length - 3, current: 3 });
    expect(new Set(await keyIds(inner))).toEqual(new Set(["k2"]));
    await readsAll(k2Only);
  });

  it("stops between files when its signal aborts", async () => {
    const { inner, rotating } = await setup();
    const controller = new AbortController();
    controller.abort();
    await expect(rotating.rotate({ signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(new Set(await keyIds(inner))).toEqual(new Set(["k1"]));
  });

  it("moves a store from a raw key to a passphrase key", async () => {
    const { inner } = await setup();
    const store = new EncryptedStore(inner, {
      keyring: { keys: { k1: testKey(1), p: { passphrase: "correct horse battery staple" } }, active: "p" },
      kdf: FAST_KDF,
    });
    await store.rotate();
    expect(new Set(await keyIds(inner))).toEqual(new Set(["p"]));
    await readsAll(
      new EncryptedStore(inner, {
        keyring: { keys: { p: { passphrase: "correct horse battery staple" } }, active: "p" },
      }),
    );
  });
});
