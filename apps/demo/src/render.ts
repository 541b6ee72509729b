/** Terminal output: what the demo prints, in the colours of `mem` (see @mem/cli's useColor). */
import type { Style } from "@mem/cli";

// The colours are the ones `mem` uses.
export { createStyle, type Style, useColor } from "@mem/cli";

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Prefixes every line of `text` with `prefix`. */
export const indent = (text: string, prefix: string): string =>
  text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");

/** At most `max` lines of `text`, with a note of how many were left out. */
export const clip = (text: string, max: number): string => {
  const lines = text.split("\n");
  if (lines.length <= max) return text;
  return [...lines.slice(0, max), `… ${lines.length - max} more lines`].join("\n");
};

const str = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

const bytes = (text: unknown): string => plural(Buffer.byteLength(str(text), "utf8"), "byte");

/** A string argument as a short JSON literal. */
const quote = (value: unknown, max = 40): string => {
  const s = str(value ?? "");
  return JSON.stringify(s.length > max ? `${s.slice(0, max - 1)}…` : s);
};

/** One line that says what a memory tool call does. */
export const describeCall = (input: unknown, style: Style): string => {
  const args = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  // memory_search's input has a query and no command.
  if (args["command"] === undefined && typeof args["query"] === "string") {
    return `${style.bold(style.magenta("search"))} ${quote(args["query"])}${args["path"] ? ` in ${style.cyan(str(args["path"]))}` : ""}`;
  }
  const command = style.bold(style.magenta(str(args["command"] ?? "?")));
  const path = style.cyan(str(args["path"] ?? ""));
  switch (args["command"]) {
    case "view":
      return `${command} ${path}${args["view_range"] ? style.dim(` lines ${str(args["view_range"])}`) : ""}`;
    case "create":
      return `${command} ${path} ${style.dim(`(${bytes(args["file_text"])})`)}`;
    case "str_replace":
      return `${command} ${path} ${style.dim(`${quote(args["old_str"])} → ${quote(args["new_str"])}`)}`;
    case "insert":
      return `${command} ${path} ${style.dim(`${args["insert_line"] === 0 ? "at the top" : `after line ${str(args["insert_line"])}`} (${bytes(args["insert_text"])})`)}`;
    case "delete":
      return `${command} ${path}`;
    case "rename":
      return `${command} ${style.cyan(str(args["old_path"]))} → ${style.cyan(str(args["new_path"]))}`;
    default:
      return `${command} ${style.dim(JSON.stringify(input))}`;
  }
};

export interface TreeFile {
  path: string;
  size: number;
  content: string;
}

/** The memory directory as an indented tree with sizes, each file's content beneath it. */
export const renderTree = (files: readonly TreeFile[], style: Style): string => {
  const total = files.reduce((sum, f) => sum + f.size, 0);
  const out = [
    `${style.bold(style.blue("/memories"))}  ${style.dim(`${plural(files.length, "file")}, ${plural(total, "byte")}`)}`,
  ];
  if (files.length === 0) out.push(style.dim("  (empty)"));
  const shownDirs = new Set<string>();
  for (const file of files) {
    const segments = file.path.split("/").slice(2);
    for (let d = 1; d < segments.length; d++) {
      const dir = segments.slice(0, d).join("/");
      if (shownDirs.has(dir)) continue;
      shownDirs.add(dir);
      out.push(`${"  ".repeat(d)}${style.blue(`${segments[d - 1]}/`)}`);
    }
    const pad = "  ".repeat(segments.length);
    out.push(`${pad}${style.cyan(segments.at(-1) ?? "")}  ${style.dim(plural(file.size, "byte"))}`);
    if (file.content !== "")
      out.push(style.dim(indent(clip(file.content.replace(/\n$/, ""), 30), `${pad}│ `)));
  }
  return out.join("\n");
};
