#!/usr/bin/env node
// Checks the release flow of `pnpm release` (scripts/release.mjs) without releasing anything and without
// the network, in two pieces, since a full copy of the repository built twice would double the test's time:
//
// 1. `changeset version` runs on a throw-away copy of .changeset/ and every package.json: each public
//    package at 0.0.0 must come out at 0.1.0 (its first release), each package it versions must have a
//    CHANGELOG.md section for its new version, the changesets must be used up, and the private packages
//    must stay as they are.
// 2. With `--tarballs <dir>` (the folder `pack-check.mjs --out <dir>` left, as `pnpm release` does):
//    one tarball per public package at its current version, each with its ES module build, its CommonJS
//    entry and a CHANGELOG.md once one exists.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root, workspacePackages } from "./workspace.mjs";

const started = Date.now();
const problems = [];
const read = (file) => JSON.parse(readFileSync(file, "utf8"));

const packages = workspacePackages();

// 1. changeset version on a copy.
const copy = mkdtempSync(join(tmpdir(), "mem-release-"));
try {
  for (const file of ["package.json", "pnpm-workspace.yaml", ".changeset"]) {
    cpSync(join(root, file), join(copy, file), { recursive: true });
  }
  for (const { dir } of packages) {
    mkdirSync(join(copy, dir), { recursive: true });
    for (const file of ["package.json", "CHANGELOG.md"]) {
      if (existsSync(join(root, dir, file))) cpSync(join(root, dir, file), join(copy, dir, file));
    }
  }
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
  const version = spawnSync(join(root, "node_modules", ".bin", "changeset"), ["version"], {
    cwd: copy,
    encoding: "utf8",
  });
  if (version.status !== 0) problems.push(`changeset version failed:\n${version.stdout}${version.stderr}`);
  for (const { dir, manifest } of packages) {
    const after = read(join(copy, dir, "package.json"));
    const changelog = join(copy, dir, "CHANGELOG.md");
    if (manifest.private === true) {
      if (after.version !== manifest.version) problems.push(`${manifest.name} (private) was versioned`);
      continue;
    }
    // Unreleased packages must come out at 0.1.0; released ones move only when a changeset names them.
    if (manifest.version === "0.0.0" && after.version !== "0.1.0")
      problems.push(`${manifest.name}: 0.0.0 became ${after.version}, not 0.1.0`);
    if (after.version === manifest.version) continue;
    if (!existsSync(changelog)) problems.push(`${manifest.name}: no CHANGELOG.md`);
    else if (!readFileSync(changelog, "utf8").includes(`## ${after.version}\n`))
      problems.push(`${manifest.name}: CHANGELOG.md has no section for ${after.version}`);
  }
  const left = readdirSync(join(copy, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md");
  if (left.length > 0) problems.push(`changesets left after versioning: ${left.join(", ")}`);
} finally {
  rmSync(copy, { recursive: true, force: true });
}

// 2. The tarballs pack-check left.
const flag = process.argv.indexOf("--tarballs");
let tarballs = 0;
if (flag >= 0) {
  const folder = join(process.cwd(), process.argv[flag + 1] ?? "");
  for (const { manifest } of packages.filter((p) => p.manifest.private !== true)) {
    const file = join(folder, `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`);
    if (!existsSync(file)) {
      problems.push(`${manifest.name}: no ${file}`);
      continue;
    }
    tarballs += 1;
    const list = spawnSync("tar", ["-tzf", file], { encoding: "utf8" }).stdout.split("\n");
    // Every file the published root entry point names (its ES module build, its CommonJS entry and their
    // types; a package with runtime-specific entries names those too).
    const leaves = (value) =>
      typeof value === "string" ? [value] : Object.values(value ?? {}).flatMap((v) => leaves(v));
    const entry = (manifest.publishConfig?.exports ?? manifest.exports)["."];
    const expected = [...new Set(leaves(entry))].map((file) => `package/${file.replace(/^\.\//, "")}`);
    if (!expected.some((file) => file.startsWith("package/dist/cjs/")))
      problems.push(`${manifest.name}: its root entry point has no CommonJS build`);
    const dir = packages.find((p) => p.manifest.name === manifest.name).dir;
    if (existsSync(join(root, dir, "CHANGELOG.md"))) expected.push("package/CHANGELOG.md");
    for (const entry of expected) {
      if (!list.includes(entry)) problems.push(`${manifest.name}: the tarball lacks ${entry.slice(8)}`);
    }
  }
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
for (const problem of problems) console.error(`release-check: ${problem}`);
console.log(
  problems.length === 0
    ? `release-check: changeset version gives the first release 0.1.0 with changelogs; ${tarballs} tarballs checked (${seconds} s)`
    : `release-check: ${problems.length} problem(s) in ${seconds} s`,
);
process.exit(problems.length === 0 ? 0 : 1);
