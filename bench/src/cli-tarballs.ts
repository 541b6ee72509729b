/**
 * `mem` as a user installs it: @mem/cli's release tarball and those of the @mem/* packages it depends on
 * (transitively), installed with a plain `npm install` into a fresh project, as scripts/examples-check.mjs
 * installs the examples' packages. The tarballs come from `node scripts/pack-check.mjs --out <dir>`, or are
 * packed here with `pnpm pack` (whose `prepack` builds each package) when no folder is given.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

interface WorkspacePackage {
  dir: string;
  manifest: { name: string; version: string; dependencies?: Record<string, string> };
}

interface Workspace {
  SCRATCH_INSTALL_FLAGS: string[];
  workspacePackages(): WorkspacePackage[];
}

const run = (command: string, args: readonly string[], cwd: string): void => {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `${[command, ...args].join(" ")} failed (${result.status ?? result.signal}):\n${result.stdout ?? ""}${result.stderr ?? ""}`.trim(),
    );
  }
};

/** The repository's scripts/workspace.mjs (plain JavaScript, shared with the release scripts). */
const workspace = async (repo: string): Promise<Workspace> =>
  (await import(pathToFileURL(join(repo, "scripts", "workspace.mjs")).href)) as Workspace;

/** `name` and the `@mem/*` packages it depends on, transitively. */
const withMemDependencies = (ws: Workspace, name: string): WorkspacePackage[] => {
  const packages = new Map(ws.workspacePackages().map((p) => [p.manifest.name, p]));
  const out = new Map<string, WorkspacePackage>();
  const visit = (dependency: string) => {
    const found = packages.get(dependency);
    if (!found || out.has(dependency)) return;
    out.set(dependency, found);
    for (const next of Object.keys(found.manifest.dependencies ?? {}))
      if (next.startsWith("@mem/")) visit(next);
  };
  visit(name);
  return [...out.values()];
};

/**
 * Installs @mem/cli from tarballs into `project` (created) and returns the path of its
 * `node_modules/.bin/mem`. `tarballs`: a folder of `pack-check.mjs --out`; without it, the packages are
 * packed into `project/tarballs` first. Returns also how the tarballs were obtained, for the report.
 */
export const installCliFromTarballs = async (
  repo: string,
  project: string,
  tarballs: string | undefined,
): Promise<{ bin: string; source: string }> => {
  const ws = await workspace(repo);
  const needed = withMemDependencies(ws, "@mem/cli");
  mkdirSync(project, { recursive: true });
  let folder = tarballs;
  if (folder === undefined) {
    folder = join(project, "tarballs");
    mkdirSync(folder);
    run(
      "npx",
      [
        "-y",
        "pnpm@10",
        "-r",
        ...needed.flatMap(({ manifest }) => ["--filter", manifest.name]),
        "pack",
        "--pack-destination",
        folder,
      ],
      repo,
    );
  }
  const files = needed.map(({ manifest }) => {
    const file = join(folder, `${manifest.name.slice(1).replace("/", "-")}-${manifest.version}.tgz`);
    if (!existsSync(file))
      throw new Error(`no tarball ${file} (node scripts/pack-check.mjs --out ${folder})`);
    return file;
  });
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "mem-cli-startup", private: true, version: "1.0.0", type: "module" })}\n`,
  );
  run("npm", ["install", ...ws.SCRATCH_INSTALL_FLAGS, ...files], project);
  const bin = join(project, "node_modules", ".bin", "mem");
  if (!existsSync(bin)) throw new Error(`npm install left no ${bin}`);
  return {
    bin,
    source:
      tarballs === undefined
        ? `packed now with pnpm pack (${files.length} tarballs)`
        : `${files.length} tarballs from ${tarballs}`,
  };
};
