#!/usr/bin/env node
// Embeds @mem/conformance's golden transcripts (every `golden/*.json` and `golden/search/*.json`, whoever
// added it) in a TypeScript
// module, so that the suite loads them without `node:fs` and runs where there is no file system (a
// Worker inside workerd, a bundled application). The texts are embedded as written; the loader parses
// and checks them exactly as it does files read from disk.
//
// `node ../../scripts/embed-golden.mjs`, run from packages/conformance by its `generate` script, writes
// `src/golden/transcripts.generated.ts`. The module is committed, so the sources condition needs no
// build step; the build regenerates it, and a test of the package fails when it is stale.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

/** The entries of one folder's `*.json` files, in name order. */
const entriesOf = (dir) =>
  readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => `  [${JSON.stringify(file)}, ${JSON.stringify(readFileSync(`${dir}/${file}`, "utf8"))}],`)
    .join("\n");

writeFileSync(
  "src/golden/transcripts.generated.ts",
  "// Generated from golden/*.json and golden/search/*.json by scripts/embed-golden.mjs (the package's `generate` script): edit those files.\n" +
    "/** Every golden transcript file: its name and its text, in name order. */\n" +
    `export const goldenFiles: ReadonlyArray<readonly [string, string]> = [\n${entriesOf("golden")}\n];\n` +
    "/** Every `memory_search` transcript file (golden/search): its name and its text, in name order. */\n" +
    `export const searchGoldenFiles: ReadonlyArray<readonly [string, string]> = [\n${entriesOf("golden/search")}\n];\n`,
);
