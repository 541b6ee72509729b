/**
 * The plain-fs baseline: each command does the least file-system work a naive tool would do —
 * readFile for views; readFile, then writeFile to a temp file + fsync + rename for edits — with no
 * validation, no locking, no directory fsync and no output formatting beyond joining lines.
 */
import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fail, guarded, listingText, ok, sliceLines } from "./raw-text.js";
import {
  type Backend,
  type ChildEnv,
  relativeOf,
  type Tool,
  type ToolInput,
  type ToolOutcome,
} from "./subject.js";

const atomicWrite = async (target: string, text: string): Promise<void> => {
  const temp = join(dirname(target), `.tmp-${randomUUID()}`);
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, target);
};

const list = async (dir: string, shown: string): Promise<string> => {
  const entries: { size: number; path: string }[] = [];
  for (const child of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const full = join(dir, child.name);
    if (child.isDirectory()) {
      entries.push({ size: 0, path: `${shown}/${child.name}/` });
      for (const leaf of (await readdir(full)).sort()) {
        entries.push({ size: (await stat(join(full, leaf))).size, path: `${shown}/${child.name}/${leaf}` });
      }
    } else {
      entries.push({ size: (await stat(full)).size, path: `${shown}/${child.name}` });
    }
  }
  return listingText(shown, entries);
};

const rawFsTool = (root: string): Tool => {
  const full = (path: string) => join(root, relativeOf(path));
  const run = async (input: ToolInput): Promise<ToolOutcome> => {
    const path = String(input["path"] ?? input["old_path"]);
    switch (input["command"]) {
      case "view": {
        try {
          const text = await readFile(full(path), "utf8");
          return ok(sliceLines(text, input["view_range"]));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EISDIR") return ok(await list(full(path), path));
          throw error;
        }
      }
      case "create":
        await mkdir(dirname(full(path)), { recursive: true });
        await atomicWrite(full(path), String(input["file_text"]));
        return ok("created");
      case "str_replace": {
        const text = await readFile(full(path), "utf8");
        const oldStr = String(input["old_str"]);
        if (!text.includes(oldStr)) return fail("no match");
        await atomicWrite(
          full(path),
          text.replace(oldStr, () => String(input["new_str"] ?? "")),
        );
        return ok("edited");
      }
      case "insert": {
        const lines = (await readFile(full(path), "utf8")).split("\n");
        lines.splice(Number(input["insert_line"]), 0, String(input["insert_text"]).replace(/\n$/, ""));
        await atomicWrite(full(path), lines.join("\n"));
        return ok("edited");
      }
      case "delete":
        await rm(full(path), { recursive: true });
        return ok("deleted");
      case "rename": {
        const target = full(String(input["new_path"]));
        await mkdir(dirname(target), { recursive: true });
        await rename(full(path), target);
        return ok("renamed");
      }
      default:
        return fail("unknown command");
    }
  };
  return {
    exec: guarded(run),
    async readText(path) {
      return readFile(full(path), "utf8").catch(() => null);
    },
  };
};

export const rawFsBackend = async (env: ChildEnv): Promise<Backend> => ({
  async open(ns) {
    const root = join(env.tmpDir, "raw-fs", ns);
    await mkdir(root, { recursive: true });
    return rawFsTool(root);
  },
  async close() {},
});
