import { defineConfig } from "vitest/config";
import { memVitestConfig } from "../../vitest.shared.js";

const base = memVitestConfig();
export default defineConfig({
  ...base,
  test: { ...base.test, globalSetup: ["test/fixtures/bundle-worker.ts"] },
});
