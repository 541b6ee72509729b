/** Parameter checks of SPEC §4: the raw `tool_use.input` → a typed command, or the spec error. */
import { msg } from "./messages.js";
import { hasLoneSurrogate } from "./text.js";

export type Command =
  | { command: "view"; path: string; view_range?: [number, number] }
  | { command: "create"; path: string; file_text: string }
  | { command: "str_replace"; path: string; old_str: string; new_str: string }
  | { command: "insert"; path: string; insert_line: number; insert_text: string }
  | { command: "delete"; path: string }
  | { command: "rename"; old_path: string; new_path: string };

export type CommandName = Command["command"];

export type Parsed = { ok: true; command: Command } | { ok: false; error: string };

type Kind = "string" | "text" | "nonEmptyText" | "integer" | "range";
type Param = { name: string; kind: Kind; optional?: true };

/** Each command's parameters in the order their checks run. */
const PARAMS: Record<CommandName, readonly Param[]> = {
  view: [
    { name: "path", kind: "string" },
    { name: "view_range", kind: "range", optional: true },
  ],
  create: [
    { name: "path", kind: "string" },
    { name: "file_text", kind: "text" },
  ],
  str_replace: [
    { name: "path", kind: "string" },
    { name: "old_str", kind: "nonEmptyText" },
    { name: "new_str", kind: "text", optional: true },
  ],
  insert: [
    { name: "path", kind: "string" },
    { name: "insert_line", kind: "integer" },
    { name: "insert_text", kind: "text" },
  ],
  delete: [{ name: "path", kind: "string" }],
  rename: [
    { name: "old_path", kind: "string" },
    { name: "new_path", kind: "string" },
  ],
};

const isCommandName = (value: unknown): value is CommandName =>
  typeof value === "string" && Object.hasOwn(PARAMS, value);

const describe = (value: unknown): string => {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

const checkParam = (param: Param, value: unknown): string | null => {
  const isString = typeof value === "string";
  switch (param.kind) {
    case "string":
      return isString ? null : msg.wrongType(param.name, "a string");
    case "text":
    case "nonEmptyText":
      if (!isString) return msg.wrongType(param.name, "a string");
      if (param.kind === "nonEmptyText" && value === "") return msg.emptyOldStr();
      return hasLoneSurrogate(value) ? msg.notUnicode(param.name) : null;
    case "integer":
      return Number.isInteger(value) ? null : msg.wrongType(param.name, "an integer");
    case "range":
      return Array.isArray(value) && value.length === 2 && value.every((v) => Number.isInteger(v))
        ? null
        : msg.wrongType(param.name, "a list of two integers");
  }
};

/**
 * Checks the raw input of a memory `tool_use` block. Unknown extra fields are ignored; a parameter
 * given as `null` counts as absent (a missing command is shown as an empty name).
 *
 * @example
 * ```ts
 * parseCommand({ command: "delete", path: "/memories/a" }) // { ok: true, command: { command: "delete", ... } }
 * parseCommand({ command: "delete" }) // { ok: false, error: "Error: Missing required parameter `path` ..." }
 * ```
 */
export function parseCommand(input: unknown): Parsed {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { ok: false, error: msg.notAnObject() };
  }
  const fields = input as Record<string, unknown>;
  const name = fields["command"];
  if (!isCommandName(name)) return { ok: false, error: msg.unknownCommand(describe(name)) };

  const command: Record<string, unknown> = { command: name };
  for (const param of PARAMS[name]) {
    const value = Object.hasOwn(fields, param.name) ? fields[param.name] : undefined;
    if (value === undefined || value === null) {
      if (param.optional) continue;
      return { ok: false, error: msg.missingParam(param.name, name) };
    }
    const error = checkParam(param, value);
    if (error) return { ok: false, error };
    command[param.name] = Array.isArray(value) ? [value[0], value[1]] : value;
  }
  if (name === "str_replace" && command["new_str"] === undefined) command["new_str"] = "";
  return { ok: true, command: command as Command };
}
