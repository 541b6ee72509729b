#!/usr/bin/env node
// `pnpm typecheck`: type-checks every workspace package, sources, tests and examples, as each package's own
// `typecheck` script does, in far fewer compiler runs.
//
// Every package reads its workspace dependencies from their sources (the `@mem/source` condition), so
// checking packages one by one checks @mem/core's sources some twenty times. Here every tsconfig that a
// package's `typecheck` script names and that only extends the shared base (adding nothing but `noEmit`)
// joins one program, which checks each file once under exactly the options each package would have used;
// a tsconfig with options of its own (the console's DOM page, the Workers code) is checked alone.
//
// A package's own `pnpm typecheck` still checks it alone.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { root, workspacePackages } from "./workspace.mjs";

const BASE = join(root, "tsconfig.base.json");

/** JSON with the comments and trailing commas tsconfig files may hold. */
const readJsonc = (file) =>
  JSON.parse(
    readFileSync(file, "utf8")
      .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_, string) => string ?? "")
      .replace(/,(\s*[}\]])/g, "$1"),
  );

/** The tsconfig files a package's `typecheck` script checks (`tsc --noEmit [-p <dir or file>]`). */
const tsconfigsOf = (dir, script) =>
  script.split("&&").map((part) => {
    const words = part.trim().split(/\s+/);
    if (words[0] !== "tsc" || !words.includes("--noEmit"))
      throw new Error(`${dir}: typecheck script "${script}" is not a series of \`tsc --noEmit [-p …]\``);
    const project = words[words.indexOf("-p") + 1];
    const target = join(root, dir, words.includes("-p") ? project : ".");
    return target.endsWith(".json") ? target : join(target, "tsconfig.json");
  });

const joined = [];
const alone = [];
for (const { dir, manifest } of workspacePackages()) {
  const script = manifest.scripts?.typecheck;
  if (!script) continue;
  for (const file of tsconfigsOf(dir, script)) {
    const config = readJsonc(file);
    const { noEmit, ...own } = config.compilerOptions ?? {};
    const plain =
      config.extends !== undefined &&
      join(dirname(file), config.extends) === BASE &&
      noEmit === true &&
      Object.keys(own).length === 0 &&
      config.files === undefined &&
      config.references === undefined;
    if (!plain) {
      alone.push(file);
      continue;
    }
    const from = (pattern) => relative(join(root, ".tmp"), join(dirname(file), pattern));
    joined.push({ include: (config.include ?? []).map(from), exclude: (config.exclude ?? []).map(from) });
  }
}

const combined = join(root, ".tmp", "tsconfig.typecheck.json");
mkdirSync(dirname(combined), { recursive: true });
writeFileSync(
  combined,
  `${JSON.stringify(
    {
      extends: relative(dirname(combined), BASE),
      compilerOptions: { noEmit: true },
      include: joined.flatMap((c) => c.include),
      exclude: [...joined.flatMap((c) => c.exclude), "../**/node_modules", "../**/dist"],
    },
    null,
    2,
  )}\n`,
);

const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
let failed = 0;
for (const project of [combined, ...alone]) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [tsc, "-p", project], { cwd: root, stdio: "inherit" });
  const name = project === combined ? `${joined.length} tsconfigs as one program` : relative(root, project);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) failed += 1;
  console.log(`typecheck: ${name}: ${result.status === 0 ? "no errors" : "errors"} (${seconds} s)`);
}
process.exit(failed === 0 ? 0 : 1);
