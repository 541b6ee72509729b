import { runConformance } from "@mem/conformance";
import { DurableObjectStore } from "../src/index.js";
import { bindings, dumpObjects, freshName } from "./helpers.js";

runConformance({
  name: "DurableObjectStore",
  create: () => new DurableObjectStore(bindings.MEMORY, { name: freshName() }),
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => new DurableObjectStore(bindings.MEMORY, { name: freshName(), ...expiry }),
  erasure: { dump: () => dumpObjects() },
});
