// The workspace as the repository's scripts see it: its root and its packages, read from
// pnpm-workspace.yaml (so a new package is covered without touching any script).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));

/** Workspace package folders: the `packages:` globs of pnpm-workspace.yaml (`dir/*` or a folder). */
export function workspaceFolders() {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const globs = [];
  let inPackages = false;
  for (const line of yaml.split("\n")) {
    if (/^\S/.test(line)) inPackages = line.startsWith("packages:");
    const item = inPackages && /^\s+-\s+["']?([^"'#\s]+)["']?/.exec(line);
    if (item) globs.push(item[1]);
  }
  return globs.flatMap((glob) => {
    if (!glob.endsWith("/*")) return [glob];
    const parent = glob.slice(0, -2);
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
  });
}

/** Every workspace package: its folder (relative to the root) and its parsed package.json. */
export const workspacePackages = () =>
  workspaceFolders()
    .filter((dir) => existsSync(join(root, dir, "package.json")))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) }));

/**
 * The flags of a plain `npm install` into a throw-away project: no audit, no lock file, quiet, and
 * registry metadata already in npm's cache used without asking again (what is missing is fetched).
 */
export const SCRATCH_INSTALL_FLAGS = [
  "--no-audit",
  "--no-fund",
  "--no-package-lock",
  "--prefer-offline",
  "--loglevel=error",
];
