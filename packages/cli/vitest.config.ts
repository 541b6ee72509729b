import { memVitestConfig } from "../../vitest.shared.js";

// The tests run the real command as child processes, several per test, each starting Node afresh.
export default memVitestConfig({ testTimeout: 240_000 });
