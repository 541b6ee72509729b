// The public surface of @mem/cloudflare: exactly what its README documents (test/exports.test.ts pins it).

export { D1Store, type D1StoreOptions } from "./d1-store.js";
export { DurableObjectStore, type DurableObjectStoreOptions } from "./durable-object-store.js";
export { MemoryObject } from "./memory-object.js";
export { type CloudflareMemoryTool, memoryTool } from "./memory-tool.js";
