#!/usr/bin/env node
// Turns text files a package sends to its server (Redis Lua, PostgreSQL SQL) into TypeScript modules, so
// that the code lives in files editors and linters understand while the published package carries it
// inside its JavaScript: nothing reads a file at run time, which keeps bundled applications working.
//
// `node ../../scripts/embed-text.mjs <file>...`, run from the package's folder by its `generate` script,
// writes `<file>.generated.ts` beside each file, exporting the file's text as `text`. The generated
// modules are committed, so the sources condition (tests, type checks of dependent packages) needs no
// build step; the package's build regenerates them, and a test of the package fails when one is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: embed-text.mjs <file>...");

for (const file of files) {
  // A JSON string is a JavaScript string literal holding the same characters.
  writeFileSync(
    `${file}.generated.ts`,
    `// Generated from ${basename(file)} by scripts/embed-text.mjs (the package's \`generate\` script): edit that file.\n` +
      `export const text: string = ${JSON.stringify(readFileSync(file, "utf8"))};\n`,
  );
}
