import { readFileSync } from "node:fs";

/** The name this server reports to MCP clients. */
export const SERVER_NAME = "mem";

/** This package's version, read from its `package.json` (one level above both `src/` and `dist/`). */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;
