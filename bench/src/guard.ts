/**
 * `pnpm --filter @mem/bench bench:guard [--quick]`: the sensitive-data guard's cost on the agent mix. Runs
 * the same command sequence with the guard on (the default) and off (`sensitive: false`), alternating, in
 * one process, and reports the median ops/s of each and their ratio. Writes results/guard.md (or
 * results/guard-quick.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExecuteOptions, executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { defaultConfig, quickConfig } from "./config.js";
import { EXECUTE_OPTIONS } from "./ours.js";
import type { Backend } from "./subject.js";
import { agentMix } from "./workloads.js";

const quick = process.argv.includes("--quick");
const config = quick ? quickConfig : defaultConfig;
const rounds = quick ? 3 : 7;
const decoder = new TextDecoder();

const backendOver = (make: () => MemoryStore, options: ExecuteOptions): Backend => {
  const stores: MemoryStore[] = [];
  return {
    async open() {
      const store = make();
      stores.push(store);
      return {
        exec: (input) => executeCommand(store, input, options),
        readText: async (path) => {
          const file = await store.read(path);
          return file ? decoder.decode(file.data) : null;
        },
      };
    },
    async close() {
      await Promise.all(stores.map((s) => s.close?.()));
    },
  };
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const tmp = mkdtempSync(join(tmpdir(), "mem-bench-guard-"));
const subjects: { name: string; make: () => MemoryStore }[] = [
  { name: "InMemoryStore", make: () => new InMemoryStore() },
  { name: "FsStore", make: () => new FsStore({ root: mkdtempSync(join(tmp, "fs-")) }) },
];
const modes: { name: string; options: ExecuteOptions }[] = [
  { name: "guard on", options: EXECUTE_OPTIONS },
  { name: "guard off", options: { ...EXECUTE_OPTIONS, sensitive: false } },
];

const lines = [
  `# Sensitive-data guard cost on the agent mix${quick ? " (quick)" : ""}`,
  "",
  `Median of ${rounds} alternating runs of ${config.mix.durationMs} ms each, ${config.mix.files} files of ${config.mix.linesPerFile} lines. Cost = ops/s off ÷ ops/s on (1.00x: free).`,
  "",
  "| store | ops/s guard on | ops/s guard off | cost |",
  "|---|---:|---:|---:|",
];
try {
  for (const subject of subjects) {
    const rates: Record<string, number[]> = { "guard on": [], "guard off": [] };
    for (let round = 0; round < rounds; round++) {
      for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
        const backend = backendOver(subject.make, mode.options);
        const result = await agentMix(backend, config);
        await backend.close();
        if (result.errors > 0 && result.firstError?.includes("Refused")) throw new Error(result.firstError);
        rates[mode.name]!.push(result.latency.opsPerSec);
      }
    }
    const on = median(rates["guard on"]!);
    const off = median(rates["guard off"]!);
    const row = `| ${subject.name} | ${Math.round(on).toLocaleString("en")} | ${Math.round(off).toLocaleString("en")} | ${(off / on).toFixed(3)}x |`;
    console.log(row);
    lines.push(row);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
writeFileSync(
  new URL(`../results/guard${quick ? "-quick" : ""}.md`, import.meta.url),
  `${lines.join("\n")}\n`,
);
