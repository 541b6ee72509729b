import { runExample } from "@mem/testkit";
import { describe, expect, it } from "vitest";

describe("examples", () => {
  it("quick-start.ts runs offline and prints every result as the engine gave it", async () => {
    expect(await runExample(new URL("..", import.meta.url), "examples/quick-start.ts")).toBe(
      [
        '> {"command":"view","path":"/memories"}',
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
        "0B\t/memories",
        '> {"command":"create","path":"/memories/project.md","file_text":"# Project\\n- timeouts: 30s\\n"}',
        "File created successfully at: /memories/project.md",
        '> {"command":"view","path":"/memories/project.md"}',
        "Here's the content of /memories/project.md with line numbers:",
        "     1\t# Project",
        "     2\t- timeouts: 30s",
        "Claude: Noted: timeouts are 30s.",
        'tools declared: [{"name":"memory","type":"memory_20250818"}]',
        "",
      ].join("\n"),
    );
  });
});
