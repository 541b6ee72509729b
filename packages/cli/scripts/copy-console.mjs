#!/usr/bin/env node
// Copies the console's built page (@mem/console's `vite build`) into dist/console, so that the published
// `mem serve` works offline with nothing but this package. Turbo builds @mem/console first (^build).
import { cpSync, existsSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const from = fileURLToPath(new URL("../../console/dist/", import.meta.url));
const to = fileURLToPath(new URL("../dist/console/", import.meta.url));
if (!existsSync(`${from}index.html`)) {
  console.error("copy-console: packages/console/dist is missing; build @mem/console first");
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
