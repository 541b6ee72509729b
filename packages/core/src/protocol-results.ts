/**
 * Results of tool protocols other than the Messages API: read-only deployments (only `view` runs; commands
 * that would change memory are refused by name) and calls to a tool that is not `memory`.
 */
import type { ToolResult } from "./execute.js";
import { msg } from "./messages.js";

const CHANGING = new Set(["create", "str_replace", "insert", "delete", "rename"]);

/**
 * The error result for a call that names a tool other than `memory` (tool protocols such as MCP), or
 * other than `memory` and `memory_search` when the protocol offers search too (`{ search: true }`).
 */
export const unknownToolResult = (name: string, options: { search?: boolean } = {}): ToolResult => ({
  content: options.search === true ? msg.unknownToolWithSearch(name) : msg.unknownTool(name),
  isError: true,
});

/**
 * The error result for tool input whose command would change memory, or `null` when the input may run
 * (a `view`, or input that `executeCommand` refuses by itself, such as an unknown command). Never throws.
 *
 * @example
 * ```ts
 * import { executeCommand, readOnlyRefusal } from "@mem/core";
 * const result = readOnlyRefusal(input) ?? (await executeCommand(store, input));
 * ```
 */
export function readOnlyRefusal(input: unknown): ToolResult | null {
  try {
    if (typeof input !== "object" || input === null) return null;
    const command: unknown = (input as Record<string, unknown>)["command"];
    return typeof command === "string" && CHANGING.has(command)
      ? { content: msg.readOnly(command), isError: true }
      : null;
  } catch {
    // A hostile getter; executeCommand answers it with its own error result.
    return null;
  }
}
