import { defineConfig } from "vitest/config";
import { memVitestConfig } from "../../vitest.shared.js";

// The tests run the real command as child processes, several per test, each starting Node afresh.
const base = memVitestConfig({ testTimeout: 240_000 });
export default defineConfig({ ...base, test: { ...base.test, globalSetup: ["test/fixtures/built.ts"] } });
