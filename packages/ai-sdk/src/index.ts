export {
  type MemoryTool,
  type MemoryToolOptions,
  memoryTool,
  type ToolResultOutput,
  toModelOutput,
} from "./memory-tool.js";
export { type MemoryTools, type MemoryToolsOptions, memoryTools } from "./memory-tools.js";
export { type MemorySearchTool, memorySearchTool } from "./search-tool.js";
