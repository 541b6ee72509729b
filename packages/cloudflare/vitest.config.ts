import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      main: "./test/fixtures/worker.ts",
      miniflare: {
        compatibilityDate: "2026-10-01",
        compatibilityFlags: ["nodejs_compat"],
        durableObjects: {
          MEMORY: { className: "MemoryObject", useSQLite: true },
          OTHER: { className: "OtherObject", useSQLite: true },
        },
        d1Databases: ["DB", "BROKEN", "LEGACY", "LIMITS"],
      },
    }),
  ],
  resolve: { conditions: ["@mem/source", "workerd", "worker", "browser", "import", "default"] },
  ssr: { resolve: { conditions: ["@mem/source", "workerd", "worker", "browser", "import", "default"] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    reporters: ["default", ["json", { outputFile: ".vitest-report.json" }]],
  },
});
