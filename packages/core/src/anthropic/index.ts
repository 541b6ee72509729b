/**
 * Claude integration of the memory tool for the Anthropic TypeScript SDK (`@anthropic-ai/sdk`, a peer
 * dependency that only this entry point needs).
 */

export { type ToolResultContentBlock, toContentBlocks } from "../content-blocks.js";
export { MEMORY_SYSTEM_PROMPT, MEMORY_TIDINESS_NOTE } from "../prompts.js";
export {
  COMPACTION_BETA,
  CONTEXT_MANAGEMENT_BETA,
  type CompactionOptions,
  type ContextManagementOptions,
  type ContextManagementParams,
  contextManagement,
} from "./context-management.js";
export {
  handleMemoryToolUse,
  MEMORY_TOOL_DEFINITION,
  type MemoryRunnableTool,
  type MemoryToolDefinitionFields,
  type MemoryToolOptions,
  type MemoryToolResultBlock,
  type MemoryToolUseBlock,
  memoryTool,
} from "./memory-tool.js";
export { MEMORY_SEARCH_TOOL_DEFINITION, type SearchRunnableTool, searchTool } from "./search-tool.js";
