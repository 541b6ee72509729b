#!/usr/bin/env node
// `pnpm release`: turns the changesets into versions and CHANGELOG.md entries (`changeset version`),
// then builds, packs and checks every public package (scripts/pack-check.mjs, whose `pnpm pack` builds
// through each package's `prepack`) and leaves the tarballs in `release/` (gitignored).
//
// The first release of a package at 0.0.0 is 0.1.0: pack-check refuses an unreleased package that no
// `minor` changeset bumps. Commit the new versions and CHANGELOG.md files, then publish the tarballs
// (`npm publish release/<file>.tgz`) or, until the packages are published, install from them (README).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const run = (command, args) => {
  console.log(`release: ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

run(join(root, "node_modules", ".bin", "changeset"), ["version"]);
run(process.execPath, [join(root, "scripts", "pack-check.mjs"), "--out", "release"]);
