import { fileURLToPath } from "node:url";
import { plainRunner, RUNTIMES, runSuitesInRuntime } from "@mem/testkit/runtimes";
import { describe, expect, it } from "vitest";
import { runConformance } from "../src/index.js";
import { inMemoryTarget } from "./helpers.js";

const script = fileURLToPath(new URL("./fixtures/runtime-conformance.ts", import.meta.url));

/** Every test the suite registers for InMemoryStore, by full name, as Node registers them. */
const expected = (): string[] => {
  const runner = plainRunner();
  runConformance({ ...inMemoryTarget, describe: runner.describe, it: runner.it, expect });
  return runner.names();
};

describe("core and InMemoryStore in other runtimes", () => {
  for (const runtime of RUNTIMES) {
    it(`${runtime}: the whole conformance suite passes on InMemoryStore`, async () => {
      const report = await runSuitesInRuntime(runtime, script);
      expect(report.failed).toEqual([]);
      expect(report.passed).toEqual(expected());
      expect(report.passed.filter((name) => name.includes("> golden transcripts >")).length).toBeGreaterThan(
        30,
      );
    }, 300_000);
  }
});
