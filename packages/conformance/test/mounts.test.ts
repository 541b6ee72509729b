import { InMemoryStore, mountStores } from "@mem/core";
import { conformanceSuites, runConformance } from "../src/index.js";

// The mounts suite over two in-memory stores.
conformanceSuites.mounts({ name: "InMemoryStore under mounts", create: () => new InMemoryStore() });

// A table that mounts one store at /memories is that store: every golden transcript, byte for byte, and
// every other suite, including the mounts suite with tables nested in tables.
runConformance({
  name: "single-mount table",
  create: () => mountStores({ "/memories": { store: new InMemoryStore(), perTenant: true } }),
  tenants: true,
});
