/**
 * Vitest global setup: bundles the database thread's sources (src/worker.ts and the @mem/core sources it
 * imports) into one ES module before the tests start, so each `SqliteStore` thread loads plain
 * JavaScript instead of starting tsx's loader and compiling the module graph again. The code is the same;
 * only the loader differs. Child processes started by the tests inherit the variable.
 */
import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export default async function bundleWorker(): Promise<() => void> {
  const dir = fileURLToPath(new URL("../node_modules/.cache/mem-sqlite-worker/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  const outfile = `${dir}worker-${process.pid}.mjs`;
  await build({
    entryPoints: [fileURLToPath(new URL("../src/worker.ts", import.meta.url))],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["@mem/source"],
    // Native; resolved from this package's node_modules at run time.
    external: ["better-sqlite3"],
    sourcemap: "inline",
    logLevel: "error",
  });
  process.env.MEM_SQLITE_WORKER_BUNDLE = outfile;
  return () => rmSync(outfile, { force: true });
}
