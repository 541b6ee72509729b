import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const tsx = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));

/** Runs an example as a user would (`pnpm --filter @mem/examples <name>`) and returns its output. */
const example = async (name: string): Promise<string> => {
  const file = fileURLToPath(new URL(`../src/${name}.ts`, import.meta.url));
  const { stdout } = await run(tsx, ["--conditions=@mem/source", file], { timeout: 60_000 });
  return stdout;
};

describe("examples", () => {
  it("custom-store: core runs every command on the bridged Map store", async () => {
    expect(await example("custom-store")).toBe(
      [
        '> {"command":"create","path":"/memories/notes.md","file_text":"# Notes\\n- likes tea\\n"}',
        "File created successfully at: /memories/notes.md",
        "",
        '> {"command":"str_replace","path":"/memories/notes.md","old_str":"tea","new_str":"green tea"}',
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):",
        "     1\t# Notes",
        "     2\t- likes green tea",
        "",
        '> {"command":"view","path":"/memories/notes.md"}',
        "Here's the content of /memories/notes.md with line numbers:",
        "     1\t# Notes",
        "     2\t- likes green tea",
        "",
        '> {"command":"rename","old_path":"/memories/notes.md","new_path":"/memories/people/ada.md"}',
        "Successfully renamed /memories/notes.md to /memories/people/ada.md",
        "",
        '> {"command":"view","path":"/memories"}',
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
        "26B\t/memories",
        "26B\t/memories/people/",
        "26B\t/memories/people/ada.md",
        "",
        '> {"command":"view","path":"/memories/../etc/passwd"}',
        "[error] Error: The path /memories/../etc/passwd is not allowed: it contains a '.' or '..' segment",
        "",
        "",
      ].join("\n"),
    );
  });

  it("agent-loop: the hand-written loop runs each memory call and sends the results back", async () => {
    expect(await example("agent-loop")).toBe(
      [
        'memory {"command":"view","path":"/memories"}',
        "  -> Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
        "0B\t/memories",
        "claude: Nothing stored yet; saving your preference.",
        'memory {"command":"create","path":"/memories/preferences.md","file_text":"- drinks: green tea\\n"}',
        "  -> File created successfully at: /memories/preferences.md",
        "claude: Noted: green tea from now on.",
        'stored: "- drinks: green tea\\n"',
        "",
      ].join("\n"),
    );
  });

  it("multi-tenant-server: each user sees only their own memory; an unknown token is refused", async () => {
    expect(await example("multi-tenant-server")).toBe(
      [
        'alice {"command":"create","path":"/memories/notes.md","file_text":"alice\'s notes\\n"}',
        "File created successfully at: /memories/notes.md",
        "",
        'bob {"command":"view","path":"/memories"}',
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
        "0B\t/memories",
        "",
        'bob {"command":"view","path":"/memories/notes.md"}',
        "The path /memories/notes.md does not exist. Please provide a valid path.",
        "",
        'alice {"command":"view","path":"/memories/notes.md"}',
        "Here's the content of /memories/notes.md with line numbers:",
        "     1\talice's notes",
        "",
        'unknown {"command":"view","path":"/memories"}',
        "HTTP 401",
        "",
        "",
      ].join("\n"),
    );
  });
});
