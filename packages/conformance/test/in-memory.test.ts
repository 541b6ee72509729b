import { InMemoryStore } from "@mem/core";
import { runConformance } from "../src/index.js";

runConformance({
  name: "InMemoryStore",
  create: () => new InMemoryStore(),
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => new InMemoryStore(expiry),
});
