import { fileURLToPath } from "node:url";
import { runConformance } from "@mem/conformance";
import { plainRunner, RUNTIMES, runSuitesInRuntime } from "@mem/testkit/runtimes";
import { describe, expect, it } from "vitest";
import { fsTarget } from "./helpers/conformance-target.js";

const script = fileURLToPath(new URL("./fixtures/runtime-conformance.ts", import.meta.url));

const expected = (): string[] => {
  const runner = plainRunner();
  runConformance({ ...fsTarget, describe: runner.describe, it: runner.it, expect });
  return runner.names();
};

describe("FsStore in other runtimes", () => {
  for (const runtime of RUNTIMES) {
    it(`${runtime}: the whole conformance suite passes on FsStore`, async () => {
      const report = await runSuitesInRuntime(runtime, script);
      expect(report.failed).toEqual([]);
      expect(report.passed).toEqual(expected());
    }, 300_000);
  }
});
