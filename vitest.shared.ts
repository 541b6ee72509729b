import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tests run against each package's TypeScript sources (the "@mem/source" export condition), so no
// build step sits between an edit and a test run. "module" is left out on purpose: it selects builds
// (the AWS SDK's dist-es) with extension-less imports that Node cannot load once vitest externalises them.
const conditions = ["@mem/source", "node", "import", "default"];
// Vitest hands the SSR conditions to Node as --conditions flags, and Node then applies "import" to
// require() as well: pg's CommonJS build would load pg-pool's ESM build and fail. Node adds "import" and
// "require" by itself where they belong, so the conditions Node sees leave "import" out.
const nodeConditions = ["@mem/source", "node", "default"];

// Bundles @mem/sqlite's database thread once per run for packages whose tests open SqliteStores from the
// sources (see the file).
const sqliteWorkerSetup = fileURLToPath(new URL("./packages/testkit/src/sqlite-worker.ts", import.meta.url));

export const memVitestConfig = (
  overrides: {
    testTimeout?: number;
    hookTimeout?: number;
    sqliteWorker?: boolean;
    globalSetup?: string[];
  } = {},
) =>
  defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions: nodeConditions } },
    test: {
      include: ["test/**/*.test.ts"],
      testTimeout: overrides.testTimeout ?? 30_000,
      hookTimeout: overrides.hookTimeout ?? 60_000,
      pool: "forks",
      globalSetup: [...(overrides.sqliteWorker ? [sqliteWorkerSetup] : []), ...(overrides.globalSetup ?? [])],
      // The JSON report lets the root test command print one closing tally for the whole repository.
      // A run of the suite in another runtime (testkit's runVitestInRuntime) names a report file of its own.
      reporters: [
        "default",
        ["json", { outputFile: process.env.MEM_VITEST_REPORT ?? ".vitest-report.json" }],
      ],
    },
  });
