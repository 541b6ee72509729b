/**
 * What the row-per-file raw baselines (`pg`, better-sqlite3) share: the commands over five row
 * operations, each the least a naive tool would do (views read the row; edits read, then write it back
 * with no version check; creates insert unless present; directory views scan the path prefix).
 */
import { fail, guarded, listingText, ok, sliceLines } from "./raw-text.js";
import { relativeOf, type Tool, type ToolInput, type ToolOutcome } from "./subject.js";

/** One namespace's rows, keyed by the file's full path. */
export interface RowOps {
  read(path: string): Promise<string | null>;
  /** Overwrites an existing row. */
  write(path: string, text: string): Promise<void>;
  /** Inserts the row unless one is there; whether it did. */
  insert(path: string, text: string): Promise<boolean>;
  /** Whether a row was deleted. */
  remove(path: string): Promise<boolean>;
  /** Moves the row unless the target exists; whether it did. */
  move(from: string, to: string): Promise<boolean>;
  /** Paths and byte sizes of the rows from `from` (inclusive) to `to` (exclusive), in path order. */
  range(from: string, to: string): Promise<{ path: string; size: number }[]>;
}

/** A directory view two levels deep, from the rows under its prefix. */
const list = async (rows: RowOps, path: string): Promise<string> => {
  const prefix = relativeOf(path) === "" ? "/memories/" : `${path}/`;
  const entries = new Map<string, number>();
  for (const row of await rows.range(prefix, `${prefix.slice(0, -1)}0`)) {
    const parts = row.path.slice(prefix.length).split("/");
    if (parts.length > 2) {
      entries.set(`${path}/${parts[0]}/`, 0);
      entries.set(`${path}/${parts[0]}/${parts[1]}/`, 0);
    } else {
      if (parts.length === 2) entries.set(`${path}/${parts[0]}/`, 0);
      entries.set(row.path, row.size);
    }
  }
  return listingText(
    path,
    [...entries].map(([p, size]) => ({ path: p, size })),
  );
};

export const rowsTool = (rows: RowOps): Tool => {
  const run = async (input: ToolInput): Promise<ToolOutcome> => {
    const path = String(input["path"] ?? input["old_path"]);
    switch (input["command"]) {
      case "view": {
        const text = relativeOf(path) === "" ? null : await rows.read(path);
        if (text !== null) return ok(sliceLines(text, input["view_range"]));
        return ok(await list(rows, path));
      }
      case "create":
        return (await rows.insert(path, String(input["file_text"]))) ? ok("created") : fail("exists");
      case "str_replace": {
        const text = await rows.read(path);
        const oldStr = String(input["old_str"]);
        if (text === null || !text.includes(oldStr)) return fail("no match");
        await rows.write(
          path,
          text.replace(oldStr, () => String(input["new_str"] ?? "")),
        );
        return ok("edited");
      }
      case "insert": {
        const text = await rows.read(path);
        if (text === null) return fail("missing");
        const lines = text.split("\n");
        lines.splice(Number(input["insert_line"]), 0, String(input["insert_text"]).replace(/\n$/, ""));
        await rows.write(path, lines.join("\n"));
        return ok("edited");
      }
      case "delete":
        return (await rows.remove(path)) ? ok("deleted") : fail("missing");
      case "rename":
        return (await rows.move(path, String(input["new_path"]))) ? ok("renamed") : fail("exists");
      default:
        return fail("unknown command");
    }
  };
  return { exec: guarded(run), readText: (path) => rows.read(path) };
};
