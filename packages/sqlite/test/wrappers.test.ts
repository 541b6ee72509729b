import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { conformanceSuites, runConformance } from "@mem/conformance";
import { mountStores } from "@mem/core";
import { EncryptedStore } from "@mem/encrypted";
import { HistoryStore } from "@mem/history";
import { SqliteStore } from "../src/index.js";
import { freshPath } from "./helpers.js";

const KEY = { key: new Uint8Array(32).fill(3) };
const inners = new WeakMap<object, SqliteStore>();
const remember = <S extends object>(store: S, inner: SqliteStore): S => {
  inners.set(store, inner);
  return store;
};
const databaseOf = (store: object): string => {
  const path = inners.get(store)?.path;
  if (!path) throw new Error("not a store made here");
  return path;
};
const destroy = async (store: { close(): Promise<void> }) => {
  const inner = inners.get(store)!;
  await store.close();
  await inner.close();
  rmSync(dirname(inner.path!), { recursive: true, force: true });
};

runConformance({
  name: "HistoryStore over SqliteStore",
  create: () => {
    const inner = new SqliteStore({ path: freshPath() });
    return remember(new HistoryStore(inner), inner);
  },
  peer: (store) => new HistoryStore(new SqliteStore({ path: databaseOf(store) })),
  destroy,
});

runConformance({
  name: "EncryptedStore over SqliteStore",
  create: () => {
    const inner = new SqliteStore({ path: freshPath() });
    return remember(new EncryptedStore(inner, KEY), inner);
  },
  peer: (store) => new EncryptedStore(new SqliteStore({ path: databaseOf(store) }), KEY),
  destroy,
  tenants: true,
  createExpiring: (expiry) => {
    const inner = new SqliteStore({ path: freshPath(), ...expiry });
    return remember(new EncryptedStore(inner, { ...KEY, ...expiry }), inner);
  },
});

// A table that mounts one SqliteStore at /memories (SPEC §8) plays every golden transcript byte for byte,
// through the store's one-request views (`readOrList`) and native edits.
conformanceSuites.golden({
  name: "a single-mount table over SqliteStore",
  create: () => {
    const inner = new SqliteStore({ path: freshPath() });
    return remember(mountStores({ "/memories": { store: inner } }), inner);
  },
  destroy,
});
