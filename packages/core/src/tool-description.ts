/**
 * The memory tool described for a model that has never seen it: the text and JSON Schema that tool
 * protocols other than the Messages API (MCP, function calling) publish for it. The Messages API's own
 * `memory_20250818` tool needs none of this; its description is built into the model.
 */
import { toolText } from "./messages.js";

/** A short human-readable name for the tool. */
export const MEMORY_TOOL_TITLE = toolText.title;

/**
 * The description of the memory tool with all six commands.
 *
 * @example
 * ```ts
 * import { MEMORY_TOOL_DESCRIPTION } from "@mem/core";
 * const tool = { name: "memory", description: MEMORY_TOOL_DESCRIPTION };
 * ```
 */
export const MEMORY_TOOL_DESCRIPTION = toolText.description;

/**
 * The description of the memory tool with all six commands, for a deployment whose `create` overwrites
 * (`createOverwrites: true`).
 */
export const MEMORY_TOOL_OVERWRITING_DESCRIPTION = toolText.overwritingDescription;

/**
 * The description of the memory tool when only `view` is allowed.
 *
 * @example
 * ```ts
 * import { MEMORY_TOOL_READ_ONLY_DESCRIPTION } from "@mem/core";
 * ```
 */
export const MEMORY_TOOL_READ_ONLY_DESCRIPTION = toolText.readOnlyDescription;

/** A JSON Schema (draft 2020-12 subset) of the memory tool's input. */
export interface MemoryToolInputSchema {
  readonly type: "object";
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly required: readonly string[];
}

const PROPERTIES = {
  command: {
    type: "string",
    enum: ["view", "create", "str_replace", "insert", "delete", "rename"],
    description: toolText.parameters.command,
  },
  path: {
    type: "string",
    description: toolText.parameters.path,
  },
  view_range: {
    type: "array",
    items: { type: "integer" },
    minItems: 2,
    maxItems: 2,
    description: toolText.parameters.view_range,
  },
  file_text: { type: "string", description: toolText.parameters.file_text },
  old_str: {
    type: "string",
    description: toolText.parameters.old_str,
  },
  new_str: { type: "string", description: toolText.parameters.new_str },
  insert_line: {
    type: "integer",
    minimum: 0,
    description: toolText.parameters.insert_line,
  },
  insert_text: { type: "string", description: toolText.parameters.insert_text },
  old_path: { type: "string", description: toolText.parameters.old_path },
  new_path: { type: "string", description: toolText.parameters.new_path },
} as const;

/**
 * The JSON Schema of the memory tool's input: `command` plus every parameter the commands take. Only
 * `command` is required by the schema; each command's own parameters are checked by `executeCommand`,
 * which answers with the specification's error results. With `readOnly`, `command` allows only `view`
 * and only its parameters are listed.
 *
 * @example
 * ```ts
 * import { memoryToolInputSchema } from "@mem/core";
 * memoryToolInputSchema().properties.command; // { type: "string", enum: ["view", "create", ...], ... }
 * ```
 */
export function memoryToolInputSchema(options: { readOnly?: boolean } = {}): MemoryToolInputSchema {
  if (options.readOnly) {
    const { path, view_range } = PROPERTIES;
    return {
      type: "object",
      properties: { command: { ...PROPERTIES.command, enum: ["view"] }, path, view_range },
      required: ["command", "path"],
    };
  }
  return { type: "object", properties: PROPERTIES, required: ["command"] };
}

/** How an MCP client lists the memory protocol (SPEC §6) that it can add to a conversation. */
export const MEMORY_PROTOCOL_DESCRIPTION = toolText.protocolDescription;
