// What runs on the Worker's side of the stores, in any runtime: the stores and the tool.
export { D1Store, type D1StoreOptions } from "./d1-store.js";
export { DurableObjectStore, type DurableObjectStoreOptions } from "./durable-object-store.js";
export { type CloudflareMemoryTool, memoryTool } from "./memory-tool.js";
