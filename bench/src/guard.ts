/**
 * `pnpm --filter @mem/bench bench:guard [--quick]`: the sensitive-data guard's cost on the agent mix. Runs
 * each command of the mix on two identical stores, one with the guard on (the default) and one with it
 * off (`sensitive: false`), in alternating order, and reports the ops/s of each and their ratio. Writes results/guard.md (or
 * results/guard-quick.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { defaultConfig, quickConfig } from "./config.js";
import { EXECUTE_OPTIONS } from "./ours.js";
import { pairedRates } from "./paired.js";

const quick = process.argv.includes("--quick");
const config = quick ? quickConfig : defaultConfig;
const rounds = 3;

const tmp = mkdtempSync(join(tmpdir(), "mem-bench-guard-"));
const subjects: { name: string; make: () => MemoryStore }[] = [
  { name: "InMemoryStore", make: () => new InMemoryStore() },
  { name: "FsStore", make: () => new FsStore({ root: mkdtempSync(join(tmp, "fs-")) }) },
];
const lines = [
  `# Sensitive-data guard cost on the agent mix${quick ? " (quick)" : ""}`,
  "",
  `Median of ${rounds} runs of ${config.mix.durationMs} ms each, every command run with the guard on and off in alternating order (per mode: the median time of each command kind, weighted by how often it ran), ${config.mix.files} files of ${config.mix.linesPerFile} lines. Cost = ops/s off ÷ ops/s on (1.00x: free).`,
  "",
  "| store | ops/s guard on | ops/s guard off | cost |",
  "|---|---:|---:|---:|",
];
try {
  const rows = await pairedRates(
    subjects,
    ({ make }) => ({
      on: { store: make(), options: EXECUTE_OPTIONS },
      off: { store: make(), options: { ...EXECUTE_OPTIONS, sensitive: false } },
    }),
    { rounds, config, fatal: (error) => error.includes("Refused") },
  );
  lines.push(...rows);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
writeFileSync(
  new URL(`../results/guard${quick ? "-quick" : ""}.md`, import.meta.url),
  `${lines.join("\n")}\n`,
);
