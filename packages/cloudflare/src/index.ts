// The public surface of @mem/cloudflare: exactly what its README documents (test/exports.test.ts pins it).
// This is the Workers entry (export conditions `workerd` and `worker`); node.ts is the one Node loads.
export { MemoryObject } from "./memory-object.js";
export * from "./worker-side.js";
