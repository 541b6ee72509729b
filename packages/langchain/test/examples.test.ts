import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));

describe("examples", () => {
  it("quick-start.ts runs offline and prints every result as the engine gave it", async () => {
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "--conditions=@mem/source", "examples/quick-start.ts"],
      { cwd: packageDir },
    );
    expect(stdout).toBe(
      [
        '> {"command":"view","path":"/memories"} (success)',
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
        "0B\t/memories",
        '> {"command":"create","path":"/memories/project.md","file_text":"# Project\\n- timeouts: 30s\\n"} (success)',
        "File created successfully at: /memories/project.md",
        '> {"command":"str_replace","path":"/memories/project.md","old_str":"60s","new_str":"30s"} (error)',
        "No replacement was performed, old_str `60s` did not appear verbatim in /memories/project.md.",
        "Claude: Noted: timeouts are 30s.",
        'tools declared: [{"type":"memory_20250818","name":"memory"}]',
        "",
      ].join("\n"),
    );
  });
});
