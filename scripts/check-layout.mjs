#!/usr/bin/env node
// Keeps every workspace package's tests in the one layout CONTRIBUTING.md describes ("Tests"), so a
// newcomer finds a test, a helper or a fixture in the same place in every package:
//
//   test/*.test.ts       the tests, flat (no folders of tests)
//   test/helpers.ts      what the tests import, or a test/helpers/ folder of flat modules (never both);
//                        `*.d.ts` shims go in test/helpers/
//   test/fixtures/**     what is loaded by path: data, child-process scripts, workers, global setups
//
// and no test file outside test/. Every file named as a vitest global setup or setup file must be a
// fixture. It reads only folder listings and vitest.config.ts, so it runs first in `pnpm test`.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root, workspacePackages } from "./workspace.mjs";

const RULE = "CONTRIBUTING.md, “Names and layout inside a package” → Tests";
// Folders that hold no sources of the package: installed, built or scratch output (see .gitignore).
const SKIPPED = /^(\..*|node_modules|dist|dist-.*|coverage|memory-demo|release)$/;
const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;

const problems = [];
const problem = (path, message) => problems.push(`${path}: ${message}`);

/** The files under `dir` (relative to it, "/"-separated), skipping the SKIPPED folders. */
const walk = (dir, prefix = "") =>
  readdirSync(join(root, dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = `${prefix}${entry.name}`;
    if (!entry.isDirectory()) return [path];
    return SKIPPED.test(entry.name) ? [] : walk(dir, `${path}/`);
  });

/** The problems of one package's test/ folder, given its files relative to test/. */
const checkTestFolder = (dir, files) => {
  const at = (file) => `${dir}/test/${file}`;
  if (files.includes("helpers.ts") && files.some((file) => file.startsWith("helpers/"))) {
    problem(
      at("helpers.ts"),
      "test/helpers.ts and test/helpers/ both exist: keep one (move it into the folder)",
    );
  }
  for (const file of files) {
    const parts = file.split("/");
    const name = parts[parts.length - 1];
    if (parts.length === 1) {
      if (name === "helpers.ts" || name.endsWith(".test.ts")) continue;
      if (TEST_FILE.test(name)) problem(at(file), "name a test file *.test.ts (the only name vitest runs)");
      else if (name.endsWith(".d.ts")) problem(at(file), "a type declaration shim goes in test/helpers/");
      else {
        problem(
          at(file),
          "only *.test.ts and helpers.ts sit directly in test/: a module the tests import goes in " +
            "test/helpers.ts or test/helpers/, a file loaded by its path in test/fixtures/",
        );
      }
    } else if (parts[0] === "helpers") {
      if (parts.length > 2) problem(at(file), "test/helpers/ is flat: no folders in it");
      else if (TEST_FILE.test(name))
        problem(at(file), "a test file sits directly in test/, not in test/helpers/");
      else if (!name.endsWith(".ts")) {
        problem(at(file), "test/helpers/ holds TypeScript modules: a data file goes in test/fixtures/");
      }
    } else if (parts[0] === "fixtures") {
      if (TEST_FILE.test(name))
        problem(at(file), "a test file sits directly in test/, not in test/fixtures/");
    } else {
      problem(
        at(file),
        `test/${parts[0]}/ is not a test folder: test/ has only helpers/ and fixtures/, and tests sit flat ` +
          "in test/ (the tests of one surface share a name prefix, as cli's console-*.test.ts)",
      );
    }
  }
};

/** Files a package's vitest.config.ts runs before the tests: they are loaded by path, so fixtures. */
const checkSetupFiles = (dir) => {
  const config = join(root, dir, "vitest.config.ts");
  if (!existsSync(config)) return;
  const text = readFileSync(config, "utf8");
  for (const [, option, value] of text.matchAll(
    /\b(globalSetup|setupFiles)\s*:\s*(\[[^\]]*\]|"[^"]*"|'[^']*')/g,
  )) {
    for (const [, file] of value.matchAll(/["']([^"']+)["']/g)) {
      if (!/^(\.\/)?test\/fixtures\//.test(file)) {
        problem(
          `${dir}/vitest.config.ts`,
          `${option} "${file}" is loaded by path: it belongs in test/fixtures/`,
        );
      }
    }
  }
};

let testFiles = 0;
const packages = workspacePackages();
for (const { dir } of packages) {
  const files = walk(dir);
  const inTest = files.filter((file) => file.startsWith("test/")).map((file) => file.slice("test/".length));
  for (const file of files) {
    if (!file.startsWith("test/") && TEST_FILE.test(file)) {
      problem(`${dir}/${file}`, "tests live in the package's test/ folder, as test/*.test.ts");
    }
  }
  checkTestFolder(dir, inTest);
  checkSetupFiles(dir);
  testFiles += inTest.filter((file) => /^[^/]+\.test\.ts$/.test(file)).length;
}

if (problems.length > 0) {
  console.error(`check-layout: ${problems.length} file(s) break the test layout (${RULE}):`);
  for (const line of problems) console.error(`  ${line}`);
  process.exit(1);
}
console.log(`check-layout: ${testFiles} test files in ${packages.length} packages follow the test layout`);
