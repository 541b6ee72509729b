/** Span and attribute names: the OpenTelemetry GenAI conventions for tool execution, plus `memory.*`. */
import type { CommandTrace } from "@mem/core";
import type { Attributes } from "@opentelemetry/api";

/** The instrumentation scope of every tracer and meter this package creates. */
export const INSTRUMENTATION_NAME = "@mem/otel";

/** The tool's name, as the model calls it. */
export const TOOL_NAME = "memory";

/** `execute_tool {gen_ai.tool.name}`, as the GenAI conventions name a tool execution span. */
export const SPAN_NAME = `execute_tool ${TOOL_NAME}`;

export const ATTR = {
  operationName: "gen_ai.operation.name",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  command: "memory.command",
  path: "memory.path",
  newPath: "memory.new_path",
  outcome: "memory.outcome",
  retries: "memory.retries",
  bytesRead: "memory.bytes_read",
  bytesWritten: "memory.bytes_written",
  tenant: "memory.tenant",
  actor: "memory.actor",
  storeOperation: "memory.store.operation",
  storeBackend: "memory.store.backend",
  errorType: "error.type",
} as const;

/** The attributes a command span starts with (its paths are known when it ends). */
export const commandAttributes = (
  command: CommandTrace,
  record: { recordPath: boolean; recordTenant: boolean; recordActor: boolean },
): Attributes => {
  const attributes: Attributes = {
    [ATTR.operationName]: "execute_tool",
    [ATTR.toolName]: TOOL_NAME,
    // Executed by the application, not by the model provider.
    [ATTR.toolType]: "function",
  };
  if (command.command !== undefined) attributes[ATTR.command] = command.command;
  if (command.backend !== undefined) attributes[ATTR.storeBackend] = command.backend;
  if (record.recordTenant && command.tenant !== undefined) attributes[ATTR.tenant] = command.tenant;
  if (record.recordActor && command.actor !== undefined) attributes[ATTR.actor] = command.actor;
  return attributes;
};

/**
 * A storage error's low-cardinality type: the typed store error's code (`not_found`, `store_failure`, …)
 * or the error's class name. Never its message, which may name a host or hold a connection string.
 */
export const errorTypeOf = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && /^[A-Z_]{1,40}$/.test(code)) return code.toLowerCase();
    const name = (error as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === "string" && /^[A-Za-z_$][\w$]{0,60}$/.test(name)) return name;
  }
  return "_OTHER";
};
