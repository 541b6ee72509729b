import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runConformance } from "@mem/conformance";
import { InMemoryStore, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { EncryptedStore, type EncryptedStoreOptions } from "../src/index.js";
import { FAST_KDF, testKey } from "./helpers.js";

/** The inner store of each store under test, so peers and cleanup can reach the same backend. */
const inners = new WeakMap<EncryptedStore, MemoryStore>();
const wrap = (inner: MemoryStore, options: EncryptedStoreOptions) => {
  const store = new EncryptedStore(inner, options);
  inners.set(store, inner);
  return store;
};
const innerOf = (store: EncryptedStore) => inners.get(store)!;

const RAW: EncryptedStoreOptions = { key: testKey(1) };
const KEYRING: EncryptedStoreOptions = {
  keyring: { keys: { old: testKey(2), pass: { passphrase: "conformance passphrase" } }, active: "pass" },
  context: "tenant-42",
  kdf: FAST_KDF,
};

runConformance({
  name: "EncryptedStore over InMemoryStore",
  create: () => wrap(new InMemoryStore(), RAW),
  peer: (store) => wrap(innerOf(store), RAW),
  tenants: true,
  createExpiring: (expiry) => wrap(new InMemoryStore(expiry), { ...RAW, ...expiry }),
});

runConformance({
  name: "EncryptedStore over InMemoryStore, passphrase keyring and context",
  create: () => wrap(new InMemoryStore(), KEYRING),
  peer: (store) => wrap(innerOf(store), KEYRING),
  tenants: true,
  createExpiring: (expiry) => wrap(new InMemoryStore(expiry), { ...KEYRING, ...expiry }),
});

const tempRoot = () => join(mkdtempSync(join(tmpdir(), "mem-encrypted-")), "memories");

runConformance({
  name: "EncryptedStore over FsStore",
  create: () => wrap(new FsStore({ root: tempRoot() }), RAW),
  peer: (store) => wrap(new FsStore({ root: (innerOf(store) as FsStore).root }), RAW),
  destroy: async (store) => {
    const root = (innerOf(store) as FsStore).root;
    await store.close();
    rmSync(join(root, ".."), { recursive: true, force: true });
  },
  tenants: true,
  createExpiring: (expiry) => wrap(new FsStore({ root: tempRoot(), ...expiry }), { ...RAW, ...expiry }),
  erasure: {
    plaintext: false,
    // Every directory and file under the inner root, with the file's (encrypted) bytes.
    dump: async (store) => {
      const root = (innerOf(store) as FsStore).root;
      return readdirSync(root, { recursive: true, encoding: "utf8" }).map((name) => {
        const path = join(root, name);
        return { key: path, value: lstatSync(path).isFile() ? readFileSync(path, "latin1") : "" };
      });
    },
  },
});
