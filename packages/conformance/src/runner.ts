/** The test runner the suites register with: vitest unless the target passes its own functions. */
import { describe, expect, it } from "vitest";

/**
 * The functions of a test runner the suites register and assert with. `it(name, body, timeout)` and
 * `describe(name, body)` as in vitest, jest or mocha; `expect` as vitest's (jest's, with a message as
 * second argument of `expect(value, message)`).
 */
export interface ConformanceRunner {
  readonly describe: (name: string, body: () => void) => unknown;
  readonly it: (name: string, body: () => Promise<void> | void, timeout?: number) => unknown;
  readonly expect: typeof expect;
}

export const vitestRunner: ConformanceRunner = { describe, it, expect };
