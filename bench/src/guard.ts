/**
 * `pnpm --filter @mem/bench bench:guard [--quick]`: the sensitive-data guard's cost on the agent mix. Runs
 * each command of the mix on two identical stores, one with the guard on (the default) and one with it
 * off (`sensitive: false`), in alternating order, and reports the ops/s of each and their ratio. Writes results/guard.md (or
 * results/guard-quick.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExecuteOptions, executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { defaultConfig, quickConfig } from "./config.js";
import { EXECUTE_OPTIONS } from "./ours.js";
import type { Backend, ToolInput } from "./subject.js";
import { agentMix } from "./workloads.js";

const quick = process.argv.includes("--quick");
const config = quick ? quickConfig : defaultConfig;
const rounds = 3;
const decoder = new TextDecoder();

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** The time of each timed command in each mode, by command name. */
interface Totals {
  on: Map<string, number[]>;
  off: Map<string, number[]>;
}

const push = (map: Map<string, number[]>, key: string, value: number) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/**
 * Mean time per command of the mix in one mode, from the median time of each command kind weighted by
 * how often it ran: a preempted command (the machine may be busy) moves a median far less than a sum.
 */
const weightedMs = (times: Map<string, number[]>): number => {
  let total = 0;
  let count = 0;
  for (const list of times.values()) {
    total += median(list) * list.length;
    count += list.length;
  }
  return total / count;
};

/**
 * Every tool runs each command twice, on a store with the guard on and on an identical one with it off,
 * in alternating order, timing each side: load on the machine hits both sides alike.
 */
const pairedBackend = (make: () => MemoryStore, totals: Totals): Backend => {
  const stores: MemoryStore[] = [];
  const on: ExecuteOptions = EXECUTE_OPTIONS;
  const off: ExecuteOptions = { ...EXECUTE_OPTIONS, sensitive: false };
  let flip = false;
  let inFlight = 0;
  return {
    async open() {
      const guarded = make();
      const plain = make();
      stores.push(guarded, plain);
      const timed = async (store: MemoryStore, input: ToolInput, options: ExecuteOptions) => {
        const started = performance.now();
        const result = await executeCommand(store, input, options);
        return { result, ms: performance.now() - started };
      };
      return {
        async exec(input) {
          flip = !flip;
          const guardedFirst = flip;
          // Seeding runs commands concurrently; only the one-at-a-time part of the mix is timed.
          const alone = ++inFlight === 1;
          const first = guardedFirst ? await timed(guarded, input, on) : await timed(plain, input, off);
          const second = guardedFirst ? await timed(plain, input, off) : await timed(guarded, input, on);
          const [a, b] = guardedFirst ? [first, second] : [second, first];
          if (alone && inFlight === 1) {
            push(totals.on, String(input["command"]), a.ms);
            push(totals.off, String(input["command"]), b.ms);
          }
          inFlight--;
          if (a.result.content !== b.result.content)
            throw new Error(`the guard changed a result: ${a.result.content}`);
          return a.result;
        },
        readText: async (path) => {
          const file = await guarded.read(path);
          return file ? decoder.decode(file.data) : null;
        },
      };
    },
    async close() {
      await Promise.all(stores.map((s) => s.close?.()));
    },
  };
};

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
  for (const subject of subjects) {
    const rates: { on: number[]; off: number[] } = { on: [], off: [] };
    for (let round = 0; round < rounds; round++) {
      const totals: Totals = { on: new Map(), off: new Map() };
      const backend = pairedBackend(subject.make, totals);
      const result = await agentMix(backend, config);
      await backend.close();
      if (result.errors > 0 && result.firstError?.includes("Refused")) throw new Error(result.firstError);
      rates.on.push(1000 / weightedMs(totals.on));
      rates.off.push(1000 / weightedMs(totals.off));
    }
    const on = median(rates.on);
    const off = median(rates.off);
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
