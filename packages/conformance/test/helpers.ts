import { InMemoryStore, type MemoryStore } from "@mem/core";
import type { ConformanceTarget, RawRecord } from "../src/index.js";

/** The in-memory store's medium is its maps: walked through tenants(), files() and read(). */
async function dump(store: MemoryStore, prefix = ""): Promise<RawRecord[]> {
  const records: RawRecord[] = [];
  for (const file of (await store.files?.()) ?? []) {
    const data = (await store.read(file.path))?.data ?? new Uint8Array();
    records.push({ key: `${prefix}${file.path}`, value: new TextDecoder().decode(data) });
  }
  let after: string | undefined;
  do {
    const page = await store.tenants?.(after === undefined ? {} : { after });
    for (const tenant of page?.tenants ?? []) {
      const scoped = store.scope?.(tenant.id) as MemoryStore;
      records.push(...(await dump(scoped, `${prefix}/${tenant.id}`)));
    }
    after = page?.next;
  } while (after !== undefined);
  return records;
}

/** InMemoryStore as the conformance suite takes it, in every runtime the tests run it in. */
export const inMemoryTarget: ConformanceTarget<InMemoryStore> = {
  name: "InMemoryStore",
  create: () => new InMemoryStore(),
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => new InMemoryStore(expiry),
  erasure: { dump: (store) => dump(store) },
};
