import { runConformance } from "@mem/conformance";
import { D1Store } from "../src/index.js";
import { bindings, dumpD1, freshName } from "./helpers.js";

// Every test gets a tenant of its own in the one database, so tests start empty.
runConformance({
  name: "D1Store",
  create: () => new D1Store(bindings.DB).scope(freshName()),
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => new D1Store(bindings.DB, expiry).scope(freshName()),
  erasure: { dump: () => dumpD1(), createIsScoped: true },
});
