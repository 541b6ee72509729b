export * from "./errors.js";
export type * from "./store.js";
export * from "./tree.js";
export { executeCommand, type ExecuteOptions, type ToolResult } from "./execute.js";
export { InMemoryStore } from "./memory-store.js";
