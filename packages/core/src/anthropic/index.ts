/**
 * Claude integration of the memory tool for the Anthropic TypeScript SDK (`@anthropic-ai/sdk`, a peer
 * dependency that only this entry point needs).
 */
export { MEMORY_SYSTEM_PROMPT, MEMORY_TIDINESS_NOTE } from "../prompts.js";
export {
  CONTEXT_MANAGEMENT_BETA,
  type ContextManagementOptions,
  type ContextManagementParams,
  contextManagement,
} from "./context-management.js";
export {
  handleMemoryToolUse,
  MEMORY_TOOL_DEFINITION,
  type MemoryRunnableTool,
  type MemoryToolOptions,
  type MemoryToolResultBlock,
  memoryTool,
} from "./memory-tool.js";
