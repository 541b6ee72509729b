export {
  type MemoryTool,
  type MemoryToolOptions,
  memoryTool,
  type ToolResultOutput,
  toModelOutput,
} from "./memory-tool.js";
