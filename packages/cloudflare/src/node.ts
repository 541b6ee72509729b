// The entry Node (and every runtime without `cloudflare:workers`) loads: the same names as index.ts, so
// that an application's shared modules and its tests import the package anywhere. The Durable Object
// class exists only inside workerd; here it says so when constructed.
export { MemoryObject } from "./node-object.js";
export * from "./worker-side.js";
