#!/usr/bin/env node
// Adds the CommonJS face of a package to the ES module build that `tsc` left in `dist/` (run from the
// package's folder, after `tsc -p tsconfig.build.json`).
//
// The code stays one ES module build: `dist/cjs/<entry>.js` only re-exports it through `require` (Node
// >= 20.19, our engines, loads ES modules that way), so `import` and `require` share one instance and
// there is no dual-package hazard. What CommonJS consumers lack is types: under `module: node16` a
// CommonJS file may not import declarations of an ES module (TS1479). `dist/cjs/` therefore holds a copy of
// every declaration file under a `package.json` of `"type": "commonjs"`, which makes TypeScript read them
// as CommonJS; relative specifiers stay valid because the tree keeps its shape. The `require` condition of
// each export points there (see any public package.json).
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const dist = join(process.cwd(), "dist");
const cjs = join(dist, "cjs");
const manifest = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8"));

rmSync(cjs, { recursive: true, force: true });
mkdirSync(cjs, { recursive: true });

const copyDeclarations = (dir) => {
  for (const entry of readdirSync(dir)) {
    const from = join(dir, entry);
    if (from === cjs) continue;
    if (statSync(from).isDirectory()) copyDeclarations(from);
    else if (entry.endsWith(".d.ts")) {
      const to = join(cjs, relative(dist, from));
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, to);
    }
  }
};
copyDeclarations(dist);
writeFileSync(join(cjs, "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);

let entries = 0;
for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
  const target = conditions?.require?.default;
  const esm = conditions?.import?.default;
  if (typeof target !== "string" || typeof esm !== "string") {
    throw new Error(`${manifest.name}: export "${subpath}" lacks import.default or require.default`);
  }
  const file = join(process.cwd(), target);
  if (!file.startsWith(`${cjs}/`)) throw new Error(`${manifest.name}: ${target} is not under dist/cjs/`);
  let specifier = relative(dirname(file), join(process.cwd(), esm));
  if (!specifier.startsWith(".")) specifier = `./${specifier}`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `"use strict";\nmodule.exports = require(${JSON.stringify(specifier)});\n`);
  entries += 1;
}
if (entries === 0) throw new Error(`${manifest.name}: no exports to give a CommonJS entry`);
