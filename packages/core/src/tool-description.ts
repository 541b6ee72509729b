/**
 * The memory tool described for a model that has never seen it: the text and JSON Schema that tool
 * protocols other than the Messages API (MCP, function calling) publish for it. The Messages API's own
 * `memory_20250818` tool needs none of this; its description is built into the model.
 */

/** A short human-readable name for the tool. */
export const MEMORY_TOOL_TITLE = "Memory";

const COMMANDS = `Commands (set \`command\` and the parameters it names):
- view: \`path\`, optional \`view_range\`. A directory shows its files and subdirectories two levels deep with their sizes; a file shows its lines numbered from 1. Long files are cut after a budget of characters; the last line then says which \`view_range\` shows the rest. \`view_range\` is [first, last], 1-based and inclusive; last = -1 means the end of the file. Page through a long file with consecutive ranges.
- create: \`path\`, \`file_text\`. Creates a new file (missing directories are made). It never overwrites: an existing file is an error.
- str_replace: \`path\`, \`old_str\`, optional \`new_str\` (default empty). Replaces the one exact occurrence of \`old_str\`; if it occurs zero times or more than once, nothing changes and the result says which lines hold it. Include enough surrounding text to make \`old_str\` unique.
- insert: \`path\`, \`insert_line\`, \`insert_text\`. Inserts the text after line \`insert_line\` (0 inserts at the top).
- delete: \`path\`. Deletes a file, or a directory with everything in it.
- rename: \`old_path\`, \`new_path\`. Moves a file or directory; it never overwrites an existing destination.`;

const PATHS = `Every path starts with /memories, the root directory of the memory (for example /memories/project/notes.md). Directories exist while they hold files. Names starting with "." are hidden from directory views.`;

/**
 * The description of the memory tool with all six commands.
 *
 * @example
 * ```ts
 * import { MEMORY_TOOL_DESCRIPTION } from "@mem/core";
 * const tool = { name: "memory", description: MEMORY_TOOL_DESCRIPTION };
 * ```
 */
export const MEMORY_TOOL_DESCRIPTION = `A persistent memory directory that survives across conversations. Store what you learn (progress, decisions, facts about the user or the task) in text files, and read it back later. Start a task by viewing /memories to see what earlier work left behind.

${PATHS}

${COMMANDS}

Every result is text. An error result explains what went wrong; a command that failed changed nothing, unless its error says the change may still have been applied.`;

/**
 * The description of the memory tool when only `view` is allowed.
 *
 * @example
 * ```ts
 * import { MEMORY_TOOL_READ_ONLY_DESCRIPTION } from "@mem/core";
 * ```
 */
export const MEMORY_TOOL_READ_ONLY_DESCRIPTION = `A persistent memory directory, shared with earlier conversations, that you can read but not change. View /memories first to see what it holds.

${PATHS}

Command: view, with \`path\` and optional \`view_range\` (set \`command\` to "view"). A directory shows its files and subdirectories two levels deep with their sizes; a file shows its lines numbered from 1. Long files are cut after a budget of characters; the last line then says which \`view_range\` shows the rest. \`view_range\` is [first, last], 1-based and inclusive; last = -1 means the end of the file. Page through a long file with consecutive ranges.

Every result is text. An error result explains what went wrong.`;

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
    description: "The operation to run.",
  },
  path: {
    type: "string",
    description:
      "The file or directory, starting with /memories (view, create, str_replace, insert, delete).",
  },
  view_range: {
    type: "array",
    items: { type: "integer" },
    minItems: 2,
    maxItems: 2,
    description:
      "view of a file only: [first line, last line], 1-based and inclusive; -1 as last means the end.",
  },
  file_text: { type: "string", description: "create: the whole content of the new file." },
  old_str: {
    type: "string",
    description: "str_replace: the exact text to replace; it must occur exactly once.",
  },
  new_str: { type: "string", description: "str_replace: the replacement text (default empty)." },
  insert_line: {
    type: "integer",
    minimum: 0,
    description: "insert: the line after which the text goes; 0 inserts before the first line.",
  },
  insert_text: { type: "string", description: "insert: the text to insert." },
  old_path: { type: "string", description: "rename: the file or directory to move." },
  new_path: { type: "string", description: "rename: where to move it; it must not exist yet." },
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
export const MEMORY_PROTOCOL_DESCRIPTION =
  "The recommended memory protocol: view the memory directory first, record progress as you work, assume your context may be reset at any moment.";
