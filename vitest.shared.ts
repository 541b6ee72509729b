import { defineConfig } from "vitest/config";

// Tests run against each package's TypeScript sources (the "@mem/source" export condition), so no
// build step sits between an edit and a test run.
export const memVitestConfig = (overrides: { testTimeout?: number; hookTimeout?: number } = {}) =>
  defineConfig({
    resolve: { conditions: ["@mem/source", "module", "node", "import", "default"] },
    ssr: { resolve: { conditions: ["@mem/source", "module", "node", "import", "default"] } },
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: overrides.testTimeout ?? 30_000,
      hookTimeout: overrides.hookTimeout ?? 60_000,
      pool: "forks",
    },
  });
