import { readFileSync } from "node:fs";
import { runExample } from "@mem/testkit";
import { describe, expect, it } from "vitest";

const example = readFileSync(new URL("../examples/quick-start.ts", import.meta.url), "utf8");
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("the quick start", () => {
  it("is in the README as it is in examples/quick-start.ts, so what runs here is what a reader pastes", () => {
    const block = /## Quick start\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(example);
  });

  it("runs, and ConsoleSpanExporter prints a span per command and per storage call", async () => {
    const out = await runExample(new URL("..", import.meta.url), "examples/quick-start.ts");
    const names = [...out.matchAll(/^ {2}name: '([^']+)',$/gm)].map(([, name]) => name);
    expect(names.filter((name) => name === "execute_tool memory")).toHaveLength(2);
    expect(names).toContain("memory.store.write");
    expect(names.filter((name) => name?.startsWith("memory.store.")).length).toBeGreaterThanOrEqual(2);
    expect(out).toContain("'memory.command': 'create'");
    expect(out).toContain("'memory.outcome': 'error'");
    expect(out).toContain("'error.type': 'not_found'");
    expect(out).not.toContain("- tea");
  });
});
