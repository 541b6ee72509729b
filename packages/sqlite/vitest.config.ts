import { memVitestConfig } from "../../vitest.shared.js";

// One bundle of the database thread for the run (see @mem/testkit's sqlite-worker.ts).
export default memVitestConfig({ sqliteWorker: true });
