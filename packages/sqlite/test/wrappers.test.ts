import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { conformanceSuites } from "@mem/conformance";
import { mountStores } from "@mem/core";
import { SqliteStore } from "../src/index.js";
import { freshPath } from "./helpers.js";

const inners = new WeakMap<object, SqliteStore>();
const remember = <S extends object>(store: S, inner: SqliteStore): S => {
  inners.set(store, inner);
  return store;
};
const destroy = async (store: { close(): Promise<void> }) => {
  const inner = inners.get(store)!;
  await store.close();
  await inner.close();
  rmSync(dirname(inner.path!), { recursive: true, force: true });
};

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
