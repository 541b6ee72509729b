import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exportedNames, undocumentedNames } from "@mem/testkit";
import { describe, expect, it } from "vitest";

// The public surface is what the README documents: a name added to or removed from an entry point must
// be added to or removed from the README and from this list.
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("public surface", { timeout: 120_000 }, () => {
  it("@mem/mcp exports exactly the names its README documents", () => {
    const names = exportedNames(fileURLToPath(new URL("../src/index.ts", import.meta.url)));
    expect(names).toEqual([
      "DEFAULT_PORT",
      "HttpServeOptions",
      "HttpServerHandle",
      "LogDestination",
      "MCP_PATH",
      "MEMORY_PROTOCOL_PROMPT",
      "MEMORY_PROTOCOL_URI",
      "MEMORY_TOOL_NAME",
      "METRICS_PATH",
      "MemoryMcpServerOptions",
      "StdioServerHandle",
      "TokenSet",
      "callMemoryTool",
      "checkToken",
      "createMemoryMcpServer",
      "isLoopbackHost",
      "isLoopbackHostHeader",
      "serveHttp",
      "serveStdio",
    ]);
    expect(undocumentedNames(readme, names)).toEqual([]);
  });
});
