import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { runConformance } from "@mem/conformance";
import { SqliteStore } from "@mem/sqlite";
import { memoryScratchDir } from "@mem/testkit";
import { HistoryStore } from "../src/index.js";

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

runConformance({
  name: "HistoryStore over SqliteStore",
  create: () => {
    const inner = new SqliteStore({ path: freshPath() });
    return remember(new HistoryStore(inner), inner);
  },
  peer: (store) => new HistoryStore(new SqliteStore({ path: databaseOf(store) })),
  destroy,
});
