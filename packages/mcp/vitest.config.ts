import { defineConfig } from "vitest/config";
import { memVitestConfig } from "../../vitest.shared.js";

const base = memVitestConfig();
// Vitest hands the resolve conditions to its worker processes as `node --conditions`, where "import"
// would make CommonJS `require()` load the ESM build of dual packages (express's `is-promise`).
const conditions = ["@mem/source", "node", "default"];

export default defineConfig({
  ...base,
  resolve: { ...base.resolve, conditions },
  ssr: { ...base.ssr, resolve: { ...base.ssr?.resolve, conditions } },
});
