/**
 * Paired runs of the agent mix: every command runs on two stores, one per mode (`on`: the feature measured,
 * `off`: without it), in alternating order, timing each side, so that load on the machine hits both alike.
 * The guard's, the mounts' and the search index's benchmarks share it.
 */
import { type ExecuteOptions, executeCommand, type MemoryStore } from "@mem/core";
import type { BenchConfig } from "./config.js";
import type { Backend, Tool, ToolInput } from "./subject.js";
import { agentMix } from "./workloads.js";

const decoder = new TextDecoder();

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** The time of each timed command in each mode, by command name. */
export interface Totals {
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
export const weightedMs = (times: Map<string, number[]>): number => {
  let total = 0;
  let count = 0;
  for (const list of times.values()) {
    total += median(list) * list.length;
    count += list.length;
  }
  return total / count;
};

/** One side of a pair: the store a mode runs on, with its options. */
export interface Side {
  store: MemoryStore;
  options: ExecuteOptions;
}

type Pair = { on: Side; off: Side };

/** Two tools over the same commands: `on` and `off`, with what their answers must share. */
export interface ToolPair {
  on: Tool;
  off: Tool;
  /** Both answers must be equal (`content`) or only their outcome (`outcome`: error or not). */
  same: "content" | "outcome";
}

/**
 * A backend whose tools run every command on both tools of a pair, in alternating order, and record the
 * time of each side of the commands that ran one at a time. `open(ns)` opens a new pair.
 */
export const pairedTools = (open: (ns: string) => ToolPair | Promise<ToolPair>, totals: Totals): Backend => {
  let flip = false;
  let inFlight = 0;
  return {
    async open(ns) {
      const { on, off, same } = await open(ns);
      const timed = async (tool: Tool, input: ToolInput) => {
        const started = performance.now();
        const result = await tool.exec(input);
        return { result, ms: performance.now() - started };
      };
      return {
        async exec(input) {
          flip = !flip;
          const onFirst = flip;
          // Seeding runs commands concurrently; only the one-at-a-time part of the mix is timed.
          const alone = ++inFlight === 1;
          const first = await timed(onFirst ? on : off, input);
          const second = await timed(onFirst ? off : on, input);
          const [a, b] = onFirst ? [first, second] : [second, first];
          if (alone && inFlight === 1) {
            push(totals.on, String(input["command"]), a.ms);
            push(totals.off, String(input["command"]), b.ms);
          }
          inFlight--;
          const differ =
            same === "content"
              ? a.result.content !== b.result.content
              : a.result.isError !== b.result.isError;
          if (differ) throw new Error(`the two sides differ: ${a.result.content} / ${b.result.content}`);
          return a.result;
        },
        readText: (path) => on.readText(path),
      };
    },
    async close() {},
  };
};

const storeTool = ({ store, options }: Side): Tool => ({
  exec: (input) => executeCommand(store, input, options),
  readText: async (path) => {
    const file = await store.read(path);
    return file ? decoder.decode(file.data) : null;
  },
});

const pairedBackend = (open: () => Pair | Promise<Pair>, totals: Totals): Backend => {
  const stores: MemoryStore[] = [];
  const tools = pairedTools(async () => {
    const { on, off } = await open();
    stores.push(on.store, off.store);
    return { on: storeTool(on), off: storeTool(off), same: "content" };
  }, totals);
  return {
    open: (ns) => tools.open(ns),
    async close() {
      await Promise.all(stores.map((s) => s.close?.()));
    },
  };
};

/**
 * For each subject, the median over `rounds` of the ops/s of each mode on the agent mix, with the row of
 * a results table (`| name | on | off | off ÷ on |`) printed and returned. `fatal` says which first
 * error of a run stops the benchmark (a mode that refused what the other accepted).
 */
export async function pairedRates<S extends { name: string }>(
  subjects: readonly S[],
  pair: (subject: S) => Pair | Promise<Pair>,
  run: { rounds: number; config: BenchConfig; fatal: (error: string) => boolean },
): Promise<string[]> {
  const rows: string[] = [];
  for (const subject of subjects) {
    const rates: { on: number[]; off: number[] } = { on: [], off: [] };
    for (let round = 0; round < run.rounds; round++) {
      const totals: Totals = { on: new Map(), off: new Map() };
      const backend = pairedBackend(() => pair(subject), totals);
      const result = await agentMix(backend, run.config);
      await backend.close();
      if (result.errors > 0 && result.firstError && run.fatal(result.firstError)) {
        throw new Error(result.firstError);
      }
      rates.on.push(1000 / weightedMs(totals.on));
      rates.off.push(1000 / weightedMs(totals.off));
    }
    const on = median(rates.on);
    const off = median(rates.off);
    const row = `| ${subject.name} | ${Math.round(on).toLocaleString("en")} | ${Math.round(off).toLocaleString("en")} | ${(off / on).toFixed(3)}x |`;
    console.log(row);
    rows.push(row);
  }
  return rows;
}
