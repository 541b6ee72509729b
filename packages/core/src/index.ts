export * from "./errors.js";
export { type ExecuteOptions, executeCommand, type ToolResult } from "./execute.js";
export { isStoreError, safeReason } from "./failure.js";
export { ForwardingStore } from "./forwarding-store.js";
export { countLines, splitLines } from "./lines.js";
export { InMemoryStore } from "./memory-store.js";
export { type Command, type CommandName, type Parsed, parseCommand } from "./parse.js";
export { type PathCheck, type ValidateOptions, validatePath } from "./path.js";
export { MEMORY_SYSTEM_PROMPT, MEMORY_TIDINESS_NOTE } from "./prompts.js";
export { readOnlyRefusal, unknownToolResult } from "./protocol-results.js";
export { backoffDelay, sleep } from "./retry.js";
export { formatSize } from "./size.js";
export type * from "./store.js";
export { checkTenant } from "./tenant.js";
export {
  MEMORY_PROTOCOL_DESCRIPTION,
  MEMORY_TOOL_DESCRIPTION,
  MEMORY_TOOL_READ_ONLY_DESCRIPTION,
  MEMORY_TOOL_TITLE,
  type MemoryToolInputSchema,
  memoryToolInputSchema,
} from "./tool-description.js";
export * from "./tree.js";
