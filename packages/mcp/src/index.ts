export { checkToken, isLoopbackHost, isLoopbackHostHeader, TokenSet } from "./access.js";
export { callMemoryTool } from "./client.js";
export {
  DEFAULT_PORT,
  type HttpServeOptions,
  type HttpServerHandle,
  MCP_PATH,
  serveHttp,
} from "./http.js";
export type { LogDestination } from "./log.js";
export { METRICS_PATH } from "./metrics.js";
export {
  createMemoryMcpServer,
  MEMORY_PROTOCOL_PROMPT,
  MEMORY_PROTOCOL_URI,
  MEMORY_TOOL_NAME,
  type MemoryMcpServerOptions,
} from "./server.js";
export { type StdioServerHandle, serveStdio } from "./stdio.js";
