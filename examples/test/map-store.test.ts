import { runConformance } from "@mem/conformance";
import { MapStore } from "../src/map-store.js";

// The example store passes the same suite as every built-in store.
runConformance({ name: "MapStore (examples/src/map-store.ts)", create: () => new MapStore() });
