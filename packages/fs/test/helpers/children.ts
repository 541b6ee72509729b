import type { ChildProcess } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startFixture as start, stopFixtures } from "@mem/testkit";
import { afterAll } from "vitest";

export { type Exit, exitOf, killOnceReady, outputOf, waitForLine } from "@mem/testkit";

const packageDir = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

afterAll(stopFixtures);

/** Starts `test/fixtures/{script}` of this package in a fresh Node.js process running the TypeScript sources. */
export const startFixture = (
  script: string,
  args: string[],
  stdin: "ignore" | "pipe" = "pipe",
): ChildProcess => start(packageDir, script, args, stdin);
