/**
 * `pnpm --filter @mem/bench bench:mounts [--quick]`: the cost of a mount table of 3 (SPEC §8) over the
 * store alone on the agent mix. Runs each command of the mix on a store alone and on an identical store
 * mounted at `/memories` of a table that also mounts `/memories/team` and `/memories/org` (read-only),
 * in alternating order, and reports the ops/s of each and their ratio. Writes results/mounts.md (or
 * results/mounts-quick.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore, type MemoryStore, mountStores } from "@mem/core";
import { FsStore } from "@mem/fs";
import { defaultConfig, quickConfig } from "./config.js";
import { EXECUTE_OPTIONS } from "./ours.js";
import { pairedRates } from "./paired.js";

const quick = process.argv.includes("--quick");
const config = quick ? quickConfig : defaultConfig;
const rounds = 3;

const tmp = mkdtempSync(join(tmpdir(), "mem-bench-mounts-"));
const subjects: { name: string; make: () => MemoryStore }[] = [
  { name: "InMemoryStore", make: () => new InMemoryStore() },
  { name: "FsStore", make: () => new FsStore({ root: mkdtempSync(join(tmp, "fs-")) }) },
];
const lines = [
  `# Mount table of 3 over the store alone on the agent mix${quick ? " (quick)" : ""}`,
  "",
  `Median of ${rounds} runs of ${config.mix.durationMs} ms each, every command run through a table of 3 mounts (the store at /memories, two more at /memories/team and /memories/org) and on the store alone in alternating order (per mode: the median time of each command kind, weighted by how often it ran), ${config.mix.files} files of ${config.mix.linesPerFile} lines. Cost = ops/s alone ÷ ops/s through the table (1.00x: free; target ≤ 1.05x).`,
  "",
  "| store | ops/s through the table | ops/s alone | cost |",
  "|---|---:|---:|---:|",
];
try {
  const rows = await pairedRates(
    subjects,
    ({ make }) => ({
      on: {
        store: mountStores({
          "/memories": { store: make() },
          "/memories/team": { store: make(), access: "read_only" },
          "/memories/org": { store: make(), access: "read_only" },
        }),
        options: EXECUTE_OPTIONS,
      },
      off: { store: make(), options: EXECUTE_OPTIONS },
    }),
    { rounds, config, fatal: (error) => error.includes("read-only") },
  );
  lines.push(...rows);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
writeFileSync(
  new URL(`../results/mounts${quick ? "-quick" : ""}.md`, import.meta.url),
  `${lines.join("\n")}\n`,
);
