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
import { executeCommand, InMemoryStore, type MemoryStore, mountStores } from "@mem/core";
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

/** The time of each timed command through the table (`on`) and on the store alone (`off`), by command name. */
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
 * Every tool runs each command twice, through the table and on the store alone, in alternating order,
 * timing each side: load on the machine hits both sides alike.
 */
const pairedBackend = (make: () => MemoryStore, totals: Totals): Backend => {
  const stores: MemoryStore[] = [];
  let flip = false;
  let inFlight = 0;
  return {
    async open() {
      const alone = make();
      const mounted = mountStores({
        "/memories": { store: make() },
        "/memories/team": { store: make(), access: "read_only" },
        "/memories/org": { store: make(), access: "read_only" },
      });
      stores.push(alone, mounted);
      const timed = async (store: MemoryStore, input: ToolInput) => {
        const started = performance.now();
        const result = await executeCommand(store, input, EXECUTE_OPTIONS);
        return { result, ms: performance.now() - started };
      };
      return {
        async exec(input) {
          flip = !flip;
          const mountedFirst = flip;
          // Seeding runs commands concurrently; only the one-at-a-time part of the mix is timed.
          const single = ++inFlight === 1;
          const first = mountedFirst ? await timed(mounted, input) : await timed(alone, input);
          const second = mountedFirst ? await timed(alone, input) : await timed(mounted, input);
          const [a, b] = mountedFirst ? [first, second] : [second, first];
          if (single && inFlight === 1) {
            push(totals.on, String(input["command"]), a.ms);
            push(totals.off, String(input["command"]), b.ms);
          }
          inFlight--;
          if (a.result.content !== b.result.content)
            throw new Error(`the table changed a result: ${a.result.content}`);
          return a.result;
        },
        readText: async (path) => {
          const file = await mounted.read(path);
          return file ? decoder.decode(file.data) : null;
        },
      };
    },
    async close() {
      await Promise.all(stores.map((s) => s.close?.()));
    },
  };
};

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
  for (const subject of subjects) {
    const rates: { on: number[]; off: number[] } = { on: [], off: [] };
    for (let round = 0; round < rounds; round++) {
      const totals: Totals = { on: new Map(), off: new Map() };
      const backend = pairedBackend(subject.make, totals);
      const result = await agentMix(backend, config);
      await backend.close();
      if (result.errors > 0 && result.firstError?.includes("read-only")) throw new Error(result.firstError);
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
  new URL(`../results/mounts${quick ? "-quick" : ""}.md`, import.meta.url),
  `${lines.join("\n")}\n`,
);
