import { runConformance } from "@mem/conformance";
import { createMapStore, VersionedMap } from "../src/map-store.js";

// The example adapter passes the same suite as every built-in store. Each store gets a map of its own;
// the peer is a second store over the same map, as a second client of one server would be.
const maps = new WeakMap<object, VersionedMap>();

runConformance({
  name: "createMapStore (examples/src/map-store.ts, on bridgeStore)",
  create: () => {
    const map = new VersionedMap();
    const store = createMapStore(map);
    maps.set(store, map);
    return store;
  },
  peer: (store) => createMapStore(maps.get(store)),
  tenants: true,
});
