export { type ChangeEvent, type ChangeHook, emitChange } from "./change.js";
export * from "./errors.js";
export { type ExecuteOptions, executeCommand, type ToolResult } from "./execute.js";
export { isStoreError, safeReason } from "./failure.js";
export { ForwardingStore } from "./forwarding-store.js";
export { countLines, splitLines } from "./lines.js";
export { InMemoryStore } from "./memory-store.js";
export { type Command, type CommandName, type Parsed, parseCommand } from "./parse.js";
export { type PathCheck, type ValidateOptions, validatePath } from "./path.js";
export { MEMORY_SYSTEM_PROMPT, MEMORY_TIDINESS_NOTE } from "./prompts.js";
export { backoffDelay, sleep } from "./retry.js";
export type { BuiltinDetectorName, SensitiveSpan } from "./sensitive/detectors.js";
export {
  type Guard,
  type GuardVerdict,
  guardText,
  resolveGuard,
  type SensitiveDetector,
  type SensitiveOptions,
} from "./sensitive/guard.js";
export { formatSize } from "./size.js";
export type * from "./store.js";
export { checkTenant } from "./tenant.js";
export * from "./tree.js";
