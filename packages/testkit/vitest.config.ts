import { memVitestConfig } from "../../vitest.shared.js";

const config = memVitestConfig();
// Vitest hands the SSR conditions to Node as --conditions flags, and Node then applies "import" to
// require() as well: pg's CommonJS build (used by the PostgreSQL tests) would load pg-pool's ESM build and fail. Node adds "import" and
// "require" by itself where they belong, so this package leaves "import" out.
config.ssr = { resolve: { conditions: ["@mem/source", "node", "default"] } };

export default config;
