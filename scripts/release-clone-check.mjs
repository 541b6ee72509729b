#!/usr/bin/env node
// `pnpm release` as a new user runs it: a fresh `git clone` of this repository's last commit into a
// temporary folder, `pnpm install` (offline, from the pnpm store this machine already holds), then
//
// 1. a release that fails (a type error planted in @mem/core, with a changeset pending): it must exit
//    non-zero and leave the clone as it found it: `git status` the same, the changeset still there,
//    every version and changelog untouched;
// 2. the release itself: it must build everything it needs in order (the console's page before the CLI
//    copies it), consume the changesets, version the package they name, and leave one tarball per
//    public package in release/.
//
// Slow (a whole build of the clone): it runs in CI (.ci/run), not in `pnpm test`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root, workspacePackages } from "./workspace.mjs";

const started = Date.now();
const problems = [];
const work = mkdtempSync(join(tmpdir(), "mem-clone-"));
const clone = join(work, "mem");

const pnpmCommand = process.env.npm_execpath?.includes("pnpm")
  ? [process.execPath, process.env.npm_execpath]
  : ["npx", "-y", "pnpm@10"];

const run = (command, args, options = {}) => {
  const result = spawnSync(command, args, { cwd: clone, encoding: "utf8", ...options });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
};
const must = (command, args, options) => {
  const result = run(command, args, options);
  if (result.status !== 0) {
    throw new Error(
      `${[command, ...args].join(" ")} failed (${result.status}):\n${result.output.slice(-4000)}`,
    );
  }
  return result.output;
};
const pnpm = (args) => run(pnpmCommand[0], [...pnpmCommand.slice(1), ...args]);
const step = (text) => console.log(`release-clone-check: ${text}`);

/** What a failed release must leave as it was. */
const state = () => ({
  status: must("git", ["status", "--porcelain", "--untracked-files=all"]),
  manifests: workspacePackages().map(({ dir }) => {
    const changelog = join(clone, dir, "CHANGELOG.md");
    return [
      dir,
      readFileSync(join(clone, dir, "package.json"), "utf8"),
      existsSync(changelog) ? readFileSync(changelog, "utf8") : null,
    ];
  }),
  changesets: readdirSync(join(clone, ".changeset")).sort(),
});

const CHANGESET = join(".changeset", "clone-check.md");
const CORE_ENTRY = join("packages", "core", "src", "index.ts");
const core = workspacePackages().find((p) => p.manifest.name === "@mem/core");

try {
  step(`cloning ${root} into ${clone}`);
  must("git", ["clone", "--quiet", root, clone], { cwd: work });
  step("installing (offline, from the pnpm store)");
  const install = pnpm(["install", "--offline", "--frozen-lockfile"]);
  if (install.status !== 0) throw new Error(`pnpm install failed:\n${install.output.slice(-4000)}`);

  // A pending changeset, so that the failed release has versions and changelogs to put back.
  writeFileSync(
    join(clone, CHANGESET),
    '---\n"@mem/core": patch\n---\n\nA release checked from a fresh clone.\n',
  );

  step("1. a release that fails at the build");
  const entry = readFileSync(join(clone, CORE_ENTRY), "utf8");
  writeFileSync(join(clone, CORE_ENTRY), `${entry}\nexport const planted: number = "a type error";\n`);
  const found = state();
  const failed = pnpm(["release"]);
  if (failed.status === 0) problems.push("the release with a type error in @mem/core succeeded");
  const left = state();
  if (left.status !== found.status) {
    problems.push(`the failed release changed the clone:\nbefore:\n${found.status}after:\n${left.status}`);
  }
  if (JSON.stringify(left.manifests) !== JSON.stringify(found.manifests))
    problems.push("the failed release left versions or changelogs changed");
  if (JSON.stringify(left.changesets) !== JSON.stringify(found.changesets))
    problems.push(`the failed release consumed changesets: ${left.changesets.join(", ")}`);
  writeFileSync(join(clone, CORE_ENTRY), entry);

  step("2. the release");
  const release = pnpm(["release"]);
  if (release.status !== 0) problems.push(`the release failed:\n${release.output.slice(-4000)}`);
  else {
    if (existsSync(join(clone, CHANGESET))) problems.push("the release left its changeset");
    const after = JSON.parse(readFileSync(join(clone, core.dir, "package.json"), "utf8"));
    if (after.version === core.manifest.version) problems.push("@mem/core was not versioned");
    const changelog = join(clone, core.dir, "CHANGELOG.md");
    if (!existsSync(changelog) || !readFileSync(changelog, "utf8").includes(`## ${after.version}\n`))
      problems.push(`@mem/core: CHANGELOG.md has no section for ${after.version}`);
    const tarballs = readdirSync(join(clone, "release")).filter((f) => f.endsWith(".tgz"));
    const publicPackages = workspacePackages().filter((p) => p.manifest.private !== true);
    if (tarballs.length !== publicPackages.length)
      problems.push(
        `release/ holds ${tarballs.length} tarballs for ${publicPackages.length} public packages`,
      );
    if (!tarballs.some((f) => f.startsWith("mem-cli-"))) problems.push("release/ has no @mem/cli tarball");
  }
} catch (error) {
  problems.push(error instanceof Error ? error.message : String(error));
} finally {
  rmSync(work, { recursive: true, force: true });
}

const seconds = ((Date.now() - started) / 1000).toFixed(0);
for (const problem of problems) console.error(`release-clone-check: ${problem}`);
console.log(
  problems.length === 0
    ? `release-clone-check: a fresh clone installs and releases; a failed release leaves it as it was (${seconds} s)`
    : `release-clone-check: ${problems.length} problem(s) in ${seconds} s`,
);
process.exit(problems.length === 0 ? 0 : 1);
