/**
 * A Worker for workerd, bundled from the workspace's TypeScript sources as wrangler would bundle it: one
 * ES module, `cloudflare:*` and `node:*` left to the runtime (its `nodejs_compat`).
 */
import { build } from "esbuild";

/** The bundled module's text, for Miniflare's `modules: [{ type: "ESModule", path, contents }]`. */
export async function bundleWorker(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    write: false,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["@mem/source", "workerd", "worker", "browser", "import"],
    mainFields: ["module", "main"],
    external: ["cloudflare:workers", "node:*"],
    logLevel: "silent",
  });
  const [file] = result.outputFiles;
  if (!file) throw new Error(`esbuild wrote nothing for ${entry}`);
  return file.text;
}
