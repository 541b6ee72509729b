/**
 * `pnpm --filter @mem/bench bench:mounts [--quick]`: the cost of a mount table of 3 (SPEC §8) over the
 * store alone on the agent mix. Runs each command of the mix on a store alone and on an identical store
 * mounted at `/memories` of a table that also mounts `/memories/team` and `/memories/org` (read-only),
 * in alternating order, and reports the ops/s of each and their ratio. Writes results/mounts.md (or
 * results/mounts-quick.md). With `--policies`, the store at `/memories` carries its own quota and guard
 * (`quota`, `guard` of its mount) and the store alone gets the same as `executeCommand` options: the cost
 * of policies chosen per mount; writes results/mounts-policies(-quick).md.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExecuteOptions, InMemoryStore, type MemoryStore, mountStores } from "@mem/core";
import { FsStore } from "@mem/fs";
import { defaultConfig, quickConfig } from "./config.js";
import { EXECUTE_OPTIONS } from "./ours.js";
import { pairedRates } from "./paired.js";

const quick = process.argv.includes("--quick");
const config = quick ? quickConfig : defaultConfig;
const rounds = 3;
const policies = process.argv.includes("--policies");
// Limits no run reaches, so both sides do the work of checking them and neither refuses.
const QUOTA = { maxFiles: 1_000_000, maxTotalBytes: 1_000_000_000_000 };
const GUARD = { detectors: { email: true } };
const ALONE_WITH_POLICIES: ExecuteOptions = { ...EXECUTE_OPTIONS, ...QUOTA, sensitive: GUARD };
const name = `mounts${policies ? "-policies" : ""}${quick ? "-quick" : ""}`;

const tmp = mkdtempSync(join(tmpdir(), "mem-bench-mounts-"));
const subjects: { name: string; make: () => MemoryStore }[] = [
  { name: "InMemoryStore", make: () => new InMemoryStore() },
  { name: "FsStore", make: () => new FsStore({ root: mkdtempSync(join(tmp, "fs-")) }) },
];
const withPolicies = policies
  ? " The store at /memories carries its own quota (limits no run reaches) and guard (email detector on); the store alone gets the same as executeCommand options."
  : "";
const lines = [
  `# Mount table of 3 over the store alone on the agent mix${policies ? ", policies per mount" : ""}${quick ? " (quick)" : ""}`,
  "",
  `Median of ${rounds} runs of ${config.mix.durationMs} ms each, every command run through a table of 3 mounts (the store at /memories, two more at /memories/team and /memories/org) and on the store alone in alternating order (per mode: the median time of each command kind, weighted by how often it ran), ${config.mix.files} files of ${config.mix.linesPerFile} lines.${withPolicies} Cost = ops/s alone ÷ ops/s through the table (1.00x: free; target ≤ 1.05x).`,
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
          "/memories": { store: make(), ...(policies ? { quota: QUOTA, guard: GUARD } : {}) },
          "/memories/team": { store: make(), access: "read_only" },
          "/memories/org": { store: make(), access: "read_only" },
        }),
        options: EXECUTE_OPTIONS,
      },
      off: { store: make(), options: policies ? ALONE_WITH_POLICIES : EXECUTE_OPTIONS },
    }),
    { rounds, config, fatal: (error) => error.includes("read-only") },
  );
  lines.push(...rows);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
writeFileSync(new URL(`../results/${name}.md`, import.meta.url), `${lines.join("\n")}\n`);
