export {
  type MemoryTool,
  type MemoryToolNodeInput,
  type MemoryToolNodeOutput,
  type MemoryToolOptions,
  memoryTool,
  memoryToolNode,
} from "./memory-tool.js";
export { type MemorySearchTool, memorySearchTool } from "./search-tool.js";
export { markToolErrors, toToolMessage } from "./tool-message.js";
