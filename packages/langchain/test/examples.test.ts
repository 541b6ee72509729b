import { runExample } from "@mem/testkit";
import { describe, expect, it } from "vitest";

describe("examples", () => {
  it("quick-start.ts runs offline and prints every result as the engine gave it", async () => {
    expect(await runExample(new URL("..", import.meta.url), "examples/quick-start.ts")).toBe(
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
