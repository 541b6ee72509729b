/** Latency samples, percentiles and peak RSS sampling. */

export interface LatencySummary {
  ops: number;
  opsPerSec: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

const percentile = (sorted: Float64Array, q: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
};

/** Summarises latencies (ms) measured over `wallMs` of wall time. */
export const summarise = (latencies: readonly number[], wallMs: number): LatencySummary => {
  const sorted = Float64Array.from(latencies).sort();
  const total = latencies.reduce((sum, value) => sum + value, 0);
  return {
    ops: latencies.length,
    opsPerSec: wallMs > 0 ? (latencies.length * 1000) / wallMs : Number.NaN,
    meanMs: latencies.length > 0 ? total / latencies.length : Number.NaN,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
};

/**
 * Samples the resident set size every few milliseconds while a phase runs. Samples are taken between
 * event-loop turns, so a spike inside one long synchronous step shows up only if it outlives the step;
 * the process-wide `maxRSS` from `resourceUsage()` is reported next to it as the hard upper bound.
 */
export class RssSampler {
  #peak = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(intervalMs = 5) {
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), intervalMs);
  }

  #sample(): void {
    const rss = process.memoryUsage.rss();
    if (rss > this.#peak) this.#peak = rss;
  }

  /** Stops sampling; the peak in MiB. */
  stop(): number {
    this.#sample();
    clearInterval(this.#timer);
    return this.#peak / (1024 * 1024);
  }
}

export const mib = (bytes: number): number => bytes / (1024 * 1024);

/** The same seeded generator the tests use, so every implementation runs the same command sequence. */
export { seededRandom } from "@mem/testkit";

/** Runs `task` over `items` with at most `concurrency` in flight. */
export const forEachBounded = async <T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<void>,
): Promise<void> => {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
};
