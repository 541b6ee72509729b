import { expect, it } from "vitest";

// Run by runtimes.test.ts inside Deno and Bun too: proves the tests ran there, not in a Node fork.
const runtime = (): string => {
  const global = globalThis as { Bun?: unknown; Deno?: unknown };
  return global.Bun !== undefined ? "bun" : global.Deno !== undefined ? "deno" : "node";
};

const named = process.env.MEM_TEST_RUNTIME ?? "node";

it("runs in the runtime the run names (MEM_TEST_RUNTIME, Node when unset)", () => {
  expect(runtime()).toBe(named);
});
