import { readFileSync } from "node:fs";
import { runExample } from "@mem/testkit";
import { describe, expect, it } from "vitest";

// The expected output is a file of its own: the release check runs the same example from the packed
// tarballs and compares it with the same file.
const expected = readFileSync(new URL("../examples/quick-start.out", import.meta.url), "utf8");

describe("examples", () => {
  it("quick-start.ts runs offline and prints every result as the engine gave it", async () => {
    expect(await runExample(new URL("..", import.meta.url), "examples/quick-start.ts")).toBe(expected);
  });
});
