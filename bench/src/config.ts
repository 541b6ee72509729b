/** Workload sizes and time boxes for the default run and for `--quick`. */

export interface BenchConfig {
  quick: boolean;
  mix: {
    /** Files seeded before the run, spread over `dirs` directories. */
    files: number;
    dirs: number;
    linesPerFile: number;
    /** Commands run (and not measured) before the measured ones. */
    warmupOps: number;
    /** The measured part stops after this long or after `maxOps` commands, whichever comes first. */
    durationMs: number;
    maxOps: number;
  };
  listing: {
    /** Tree sizes, in files; 100 files per directory, directories directly under `/memories`. */
    sizes: number[];
    filesPerDir: number;
    durationMs: number;
    minIterations: number;
    maxIterations: number;
  };
  paging: { lines: number; pageLines: number; durationMs: number; maxOps: number };
  concurrency: { agents: number; insertsPerAgent: number };
  /** Commands of each kind run to count backend requests per command (Redis and S3 only). */
  accountingOps: number;
  /** Seeding runs this many commands at once. */
  seedConcurrency: number;
  /** A child that takes longer than this is killed and reported as failed. */
  childTimeoutMs: number;
}

export const defaultConfig: BenchConfig = {
  quick: false,
  mix: { files: 1_000, dirs: 20, linesPerFile: 40, warmupOps: 200, durationMs: 3_000, maxOps: 100_000 },
  listing: {
    sizes: [1_000, 10_000],
    filesPerDir: 100,
    durationMs: 2_000,
    minIterations: 3,
    maxIterations: 500,
  },
  paging: { lines: 100_000, pageLines: 100, durationMs: 1_500, maxOps: 1_000 },
  concurrency: { agents: 16, insertsPerAgent: 25 },
  accountingOps: 20,
  seedConcurrency: 8,
  childTimeoutMs: 360_000,
};

export const quickConfig: BenchConfig = {
  quick: true,
  mix: { files: 150, dirs: 10, linesPerFile: 40, warmupOps: 20, durationMs: 300, maxOps: 20_000 },
  listing: { sizes: [1_000], filesPerDir: 100, durationMs: 200, minIterations: 2, maxIterations: 100 },
  paging: { lines: 10_000, pageLines: 100, durationMs: 200, maxOps: 100 },
  concurrency: { agents: 16, insertsPerAgent: 4 },
  accountingOps: 3,
  seedConcurrency: 8,
  childTimeoutMs: 45_000,
};
