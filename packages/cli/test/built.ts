/**
 * Vitest global setup: the tests run the built command (test/run-mem.ts), so they refuse to start over a
 * missing or stale build of this package or of any workspace package it depends on; running them over
 * old JavaScript would test code that is no longer there. `turbo run test` builds them first (turbo.json).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const packagesDir = fileURLToPath(new URL("../../", import.meta.url));

const newest = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }, 0);

const workspaceDependencies = (name: string, seen = new Set<string>()): Set<string> => {
  if (seen.has(name)) return seen;
  seen.add(name);
  const manifest = JSON.parse(readFileSync(join(packagesDir, name, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
    if (range.startsWith("workspace:")) workspaceDependencies(dependency.replace(/^@mem\//, ""), seen);
  }
  return seen;
};

export default function checkBuilt(): void {
  const stale = [...workspaceDependencies("cli")].filter((name) => {
    const built = join(packagesDir, name, "dist", "index.js");
    if (!existsSync(built)) return true;
    const sources = Math.max(
      newest(join(packagesDir, name, "src")),
      statSync(join(packagesDir, name, "package.json")).mtimeMs,
    );
    return sources > statSync(built).mtimeMs;
  });
  if (stale.length > 0) {
    throw new Error(
      `the CLI tests run the built command, but dist/ is missing or older than src/ in ${stale
        .map((name) => `packages/${name}`)
        .join(", ")}: run \`pnpm build\` (or \`pnpm turbo run build --filter=@mem/cli...\`) first`,
    );
  }
}
