// Core's own test files, run by vitest inside Deno and inside Bun (from their npm packages): every test
// Node registers must pass there too, none left out.
import { fileURLToPath } from "node:url";
import { RUNTIMES, runVitestInRuntime, vitestTestNames } from "@mem/testkit/runtimes";
import { describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
// This file starts the runs; it does not run inside them.
const exclude = ["test/runtimes.test.ts"];

describe("core's test files in other runtimes", () => {
  let expected: Promise<string[]> | undefined;
  for (const runtime of RUNTIMES) {
    // Both at once: each run waits on its own child processes much of the time.
    it.concurrent(`${runtime}: every test passes, as under Node`, async () => {
      expected ??= vitestTestNames(packageDir, exclude);
      const report = await runVitestInRuntime(runtime, packageDir, { exclude });
      expect(report.failed).toEqual([]);
      expect(report.notRun).toEqual([]);
      expect(report.passed.length).toBeGreaterThan(500);
      expect([...report.passed].sort()).toEqual([...(await expected)].sort());
      // runtime-name.test.ts, among them, checked that it ran in this runtime.
    }, 600_000);
  }
});
