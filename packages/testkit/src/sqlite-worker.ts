/**
 * A Vitest global setup for packages whose tests open `SqliteStore`s from the TypeScript sources: it
 * bundles @mem/sqlite's database thread (src/worker.ts and the @mem/core sources it imports) into one ES
 * module before the tests start and names it in `MEM_SQLITE_WORKER_BUNDLE`, so each store's thread loads
 * plain JavaScript instead of starting tsx's loader and compiling the module graph again (about 0.4 s of
 * CPU per thread; the conformance suites start hundreds). The code is the same; only the loader differs.
 * Child processes started by the tests inherit the variable.
 *
 * @example
 * ```ts
 * // vitest.config.ts (the repository's shared configuration adds this file as a global setup)
 * export default memVitestConfig({ sqliteWorker: true });
 * ```
 */
import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** @mem/sqlite's folder, beside this package's in the repository (the setup runs from the sources only). */
const sqlitePackage = new URL("../../sqlite/", import.meta.url);

export async function bundleSqliteWorker(): Promise<() => void> {
  // Inside @mem/sqlite's own node_modules, so that the bundle's `better-sqlite3` resolves from there.
  const dir = fileURLToPath(new URL("node_modules/.cache/mem-sqlite-worker/", sqlitePackage));
  mkdirSync(dir, { recursive: true });
  const outfile = `${dir}worker-${process.pid}.mjs`;
  await build({
    entryPoints: [fileURLToPath(new URL("src/worker.ts", sqlitePackage))],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["@mem/source"],
    // Native; resolved from @mem/sqlite's node_modules at run time.
    external: ["better-sqlite3"],
    sourcemap: "inline",
    logLevel: "error",
  });
  process.env.MEM_SQLITE_WORKER_BUNDLE = outfile;
  return () => rmSync(outfile, { force: true });
}

export default bundleSqliteWorker;
