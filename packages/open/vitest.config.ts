import { memVitestConfig } from "../../vitest.shared.js";

// Their tests open SqliteStores from the sources: one bundle of the database thread for the run.
export default memVitestConfig({ sqliteWorker: true });
