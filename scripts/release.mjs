#!/usr/bin/env node
// `pnpm release`: turns the changesets into versions and CHANGELOG.md entries (`changeset version`),
// builds every workspace package in dependency order (`turbo run build`: the console's page before the
// CLI that copies it), then packs and checks every public package (scripts/pack-check.mjs, packing those
// builds) and leaves the tarballs in `release/` (gitignored).
//
// A release that fails, or is interrupted, leaves the clone as it found it: the changesets, every
// package.json and every CHANGELOG.md are put back as they were before `changeset version` ran, and files
// it created are removed. Build outputs (`dist/`, all gitignored) may stay.
//
// The first release of a package at 0.0.0 is 0.1.0: pack-check refuses an unreleased package that no
// `minor` changeset bumps. Commit the new versions and CHANGELOG.md files, then publish the tarballs
// (`npm publish release/<file>.tgz`) or, until the packages are published, install from them (README).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, workspaceFolders } from "./workspace.mjs";

/** Every file `changeset version` may change, create or remove, with its bytes now (`null`: absent). */
const watchedFiles = () => {
  const changesets = join(root, ".changeset");
  const files = [
    join(root, "package.json"),
    ...readdirSync(changesets).map((name) => join(changesets, name)),
    ...workspaceFolders().flatMap((dir) => [
      join(root, dir, "package.json"),
      join(root, dir, "CHANGELOG.md"),
    ]),
  ];
  return new Map(files.map((file) => [file, existsSync(file) ? readFileSync(file) : null]));
};

const before = watchedFiles();

/** Puts back every watched file as it was, and removes what `changeset version` added. */
const restore = () => {
  for (const [file, bytes] of before) {
    if (bytes === null) rmSync(file, { force: true });
    else if (!existsSync(file) || !readFileSync(file).equals(bytes)) writeFileSync(file, bytes);
  }
  for (const file of watchedFiles().keys()) if (!before.has(file)) rmSync(file, { force: true });
  console.error("release: failed; the changesets, versions and changelogs are as they were before it ran");
};

const run = (command, args) => {
  console.log(`release: ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    restore();
    process.exit(result.status ?? 1);
  }
};

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    restore();
    process.exit(1);
  });
}

const bin = (name) => join(root, "node_modules", ".bin", name);
run(bin("changeset"), ["version"]);
run(bin("turbo"), ["run", "build"]);
// Everything was just built: the packs take the builds as they are (`--built`) rather than build again.
run(process.execPath, [join(root, "scripts", "pack-check.mjs"), "--built", "--out", "release"]);
