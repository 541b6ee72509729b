/**
 * Two stores run the same command stream side by side, each command on both in alternating order and
 * timed on each side, so that load on the machine hits both alike: the guard's cost (guard.ts) and the
 * search index's write cost (search.ts) are read from the ratio.
 */
import { type ExecuteOptions, executeCommand, type MemoryStore } from "@mem/core";
import type { Backend, ToolInput } from "./subject.js";

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** The time of each timed command on each side, by command name. */
export interface Totals {
  a: Map<string, number[]>;
  b: Map<string, number[]>;
}

const push = (map: Map<string, number[]>, key: string, value: number) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/**
 * Mean time per command of the mix on one side, from the median time of each command kind weighted by
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

export interface Side {
  make: () => MemoryStore | Promise<MemoryStore>;
  options: ExecuteOptions;
}

/** A backend whose every command runs on a store of side `a` and one of side `b`; results must agree. */
export const pairedBackend = (a: Side, b: Side, totals: Totals, what: string): Backend => {
  const stores: MemoryStore[] = [];
  const decoder = new TextDecoder();
  let flip = false;
  let inFlight = 0;
  return {
    async open() {
      const storeA = await a.make();
      const storeB = await b.make();
      stores.push(storeA, storeB);
      const timed = async (store: MemoryStore, input: ToolInput, options: ExecuteOptions) => {
        const started = performance.now();
        const result = await executeCommand(store, input, options);
        return { result, ms: performance.now() - started };
      };
      return {
        async exec(input) {
          flip = !flip;
          const aFirst = flip;
          // Seeding runs commands concurrently; only the one-at-a-time part of the mix is timed.
          const alone = ++inFlight === 1;
          const first = aFirst
            ? await timed(storeA, input, a.options)
            : await timed(storeB, input, b.options);
          const second = aFirst
            ? await timed(storeB, input, b.options)
            : await timed(storeA, input, a.options);
          const [onA, onB] = aFirst ? [first, second] : [second, first];
          if (alone && inFlight === 1) {
            push(totals.a, String(input["command"]), onA.ms);
            push(totals.b, String(input["command"]), onB.ms);
          }
          inFlight--;
          if (onA.result.content !== onB.result.content)
            throw new Error(`${what} changed a result: ${onA.result.content}`);
          return onA.result;
        },
        readText: async (path) => {
          const file = await storeA.read(path);
          return file ? decoder.decode(file.data) : null;
        },
      };
    },
    async close() {
      await Promise.all(stores.map((s) => s.close?.()));
    },
  };
};
