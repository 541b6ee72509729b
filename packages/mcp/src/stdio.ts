/** The stdio transport: one client (the process that started this one) over stdin and stdout. */
import type { MemoryStore } from "@mem/core";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMemoryMcpServer, type MemoryMcpServerOptions } from "./server.js";

/** A server running on stdio. */
export interface StdioServerHandle {
  /** Resolves when the client closes the connection (stdin ends) or `close()` is called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves `store` to the MCP client on this process's stdin and stdout. Nothing else may write to
 * stdout while it runs; log to stderr.
 *
 * @example
 * ```ts
 * import { FsStore } from "@mem/fs";
 * import { serveStdio } from "@mem/mcp";
 *
 * const store = new FsStore({ root: "./memory" });
 * const server = await serveStdio(store);
 * await server.closed;
 * await store.close();
 * ```
 */
export async function serveStdio(
  store: MemoryStore,
  options: MemoryMcpServerOptions = {},
): Promise<StdioServerHandle> {
  const server = createMemoryMcpServer(store, options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  // The SDK's stdio transport does not notice the end of its input by itself.
  const onEnd = (): void => void server.close();
  process.stdin.once("end", onEnd);
  await server.connect(transport);
  return {
    closed: closed.finally(() => process.stdin.off("end", onEnd)),
    close: () => server.close(),
  };
}
