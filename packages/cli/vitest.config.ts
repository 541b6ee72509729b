import { memVitestConfig } from "../../vitest.shared.js";

// The tests run the real command as child processes, several per test, each starting Node afresh; the
// stores they open in-process from the sources get one bundle of SQLite's database thread for the run.
export default memVitestConfig({
  testTimeout: 240_000,
  sqliteWorker: true,
  globalSetup: ["test/fixtures/built.ts"],
});
