import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { runConformance } from "@mem/conformance";
import { SqliteStore } from "@mem/sqlite";
import { memoryScratchDir } from "@mem/testkit";
import { EncryptedStore } from "../src/index.js";

const freshPath = (): string => join(memoryScratchDir("mem-sqlite-"), "memory.db");
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

const KEY = { key: new Uint8Array(32).fill(3) };

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
