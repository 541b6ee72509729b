export {
  type MemoryTool,
  type MemoryToolNodeInput,
  type MemoryToolNodeOutput,
  type MemoryToolOptions,
  memoryTool,
  memoryToolNode,
} from "./memory-tool.js";
export { type MemoryMiddleware, type MemoryMiddlewareOptions, memoryMiddleware } from "./middleware.js";
export { type MemorySearchTool, memorySearchTool } from "./search-tool.js";
export { markToolErrors, toToolMessage, withMarkedToolErrors } from "./tool-message.js";
