/**
 * `pnpm --filter @mem/bench bench:search [--quick]`: search (SPEC §9) through the stores' own indexes
 * against core's fallback on the same data, and what keeping the index costs the agent mix.
 *
 * 1. Speed: 10,000 files of about 5 kB (50 MB; --quick: 1,000 files) in one SqliteStore and one
 *    PostgresStore. Each query runs through `searchMemory` on the store (its index) and on the same store
 *    seen without `search()` (core lists and reads every file); results must be equal. Ratio = fallback
 *    time ÷ indexed time, medians of alternating runs.
 * 2. Without the index (`--scan`, or with 1.): PostgresStore made with `searchIndex: false` answers the same
 *    queries by reading the tenant's files in its statement; time against the indexed store's.
 * 3. Write cost: the agent mix on two stores of the same medium, one with the index and one without
 *    (SQLite: the FTS table and its triggers dropped; PostgreSQL: `searchIndex: false`), each command run
 *    on both in alternating order (paired.ts). Cost = ops/s without ÷ ops/s with.
 * Writes results/search.md (or results/search-quick.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type MemoryStore, type SearchOptions, searchMemory } from "@mem/core";
import { PostgresStore } from "@mem/postgres";
import { SqliteStore } from "@mem/sqlite";
import { startPostgres } from "@mem/testkit";
import Database from "better-sqlite3";
import pg from "pg";
import { defaultConfig, quickConfig } from "./config.js";
import { EXECUTE_OPTIONS } from "./ours.js";
import { median, pairedRates } from "./paired.js";

const quick = process.argv.includes("--quick");
/** `--cost`: only the write cost (the speed part at 10,000 files takes minutes on PostgreSQL's fallback). */
const costOnly = process.argv.includes("--cost");
/** `--scan`: only PostgreSQL's search with and without its index (no fallback, no write cost). */
const scanOnly = process.argv.includes("--scan");
const config = quick ? quickConfig : defaultConfig;
const FILES = quick ? 1_000 : 10_000;
const LINES = 75;
const RUNS = 3;
const MIX_ROUNDS = 3;
const encoder = new TextEncoder();

/** About 5 kB of notes; a few files hold the rare word. */
const fileText = (i: number): string => {
  const lines: string[] = [];
  for (let k = 0; k < LINES; k++) {
    lines.push(`entry ${i}.${k}: notes on topic ${(i * 7 + k) % 97} with words alpha beta gamma delta`);
  }
  if (i % 2_000 === 17) lines[Math.floor(LINES / 2)] = `entry ${i}: the Zanzibar plan, kept for later`;
  return `${lines.join("\n")}\n`;
};

const QUERIES: SearchOptions[] = [
  { query: "zanzibar" },
  { query: "entry 4242.1:", caseSensitive: true },
  { query: "topic 42 with", limit: 10_000 },
];

/** The store seen without its index: core's fallback reads every file. */
const fallbackOf = (store: MemoryStore): MemoryStore =>
  ({
    read: (path) => store.read(path),
    stat: (path) => store.stat(path),
    list: (path, depth, options) => store.list(path, depth, options),
  }) as MemoryStore;

const seed = async (store: MemoryStore): Promise<number> => {
  let bytes = 0;
  for (let i = 0; i < FILES; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, FILES - i) }, (_, k) => {
        const data = encoder.encode(fileText(i + k));
        bytes += data.length;
        return store.write(`/memories/d${(i + k) % 50}/f${i + k}.md`, data, { ifAbsent: true });
      }),
    );
  }
  return bytes;
};

const timed = async <T>(body: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await body();
  return { value, ms: performance.now() - started };
};

const lines: string[] = [
  `# Search: native indexes against core's fallback${quick ? " (quick)" : ""}`,
  "",
  `${FILES.toLocaleString("en")} files of ${LINES} lines (about 5 kB each). Each query through \`searchMemory\` on the store (its index) and on the same store without \`search()\` (core lists, then reads each file), in alternating order; medians of ${RUNS} runs each. Target: the index ≥ 20x faster at 10,000 files / 50 MB.`,
  "",
  "| store | query | hits | indexed ms | fallback ms | ratio |",
  "|---|---|---:|---:|---:|---:|",
];

/**
 * `query` through `searchMemory` on two stores in alternating order, `RUNS` times each: the hits and the
 * median milliseconds of each. Both must give the same result.
 */
const compared = async (name: string, first: MemoryStore, second: MemoryStore, query: SearchOptions) => {
  const times: [number[], number[]] = [[], []];
  let hits = 0;
  for (let run = 0; run < RUNS; run++) {
    const a = await timed(() => searchMemory(first, query));
    const b = await timed(() => searchMemory(second, query));
    if (JSON.stringify(a.value) !== JSON.stringify(b.value))
      throw new Error(`${name}: the index changed the result`);
    times[0].push(a.ms);
    times[1].push(b.ms);
    hits = a.value.hits.length + a.value.more;
  }
  return { hits, first: median(times[0]), second: median(times[1]) };
};

const measure = async (name: string, store: MemoryStore): Promise<void> => {
  const bytes = await seed(store);
  console.log(`${name}: seeded ${FILES} files, ${(bytes / 1e6).toFixed(1)} MB`);
  for (const query of QUERIES) {
    const { hits, first: n, second: f } = await compared(name, store, fallbackOf(store), query);
    const row = `| ${name} | \`${JSON.stringify(query)}\` | ${hits} | ${n.toFixed(1)} | ${f.toFixed(1)} | ${(f / n).toFixed(1)}x |`;
    console.log(row);
    lines.push(row);
  }
};

const tmp = mkdtempSync(join(tmpdir(), "mem-bench-search-"));
const postgres = await startPostgres();
const pools: pg.Pool[] = [];
const pool = () => {
  const made = new pg.Pool({ connectionString: postgres.url, max: 8 });
  made.on("error", () => undefined);
  pools.push(made);
  return made;
};
let tables = 0;
try {
  if (!costOnly) {
    lines.push(
      "",
      "## PostgreSQL without the index (`searchIndex: false`)",
      "",
      "The same files in a table made without the `pg_trgm` index: `search()` then tests the tenant's files under the path in its one statement. Both through `searchMemory`, in alternating order; medians of 3 runs; results equal.",
      "",
      "| query | hits | indexed ms | without the index ms | ratio |",
      "|---|---:|---:|---:|---:|",
    );
    const indexed = new PostgresStore({ pool: pool(), table: "scan_indexed" });
    const scanning = new PostgresStore({ pool: pool(), table: "scan_plain", searchIndex: false });
    await seed(indexed);
    const bytes = await seed(scanning);
    // As autovacuum would, so that the planner knows the tables' sizes.
    await pool().query("ANALYZE scan_indexed; ANALYZE scan_plain");
    console.log(
      `PostgreSQL with and without the index: seeded ${FILES} files, ${(bytes / 1e6).toFixed(1)} MB each`,
    );
    for (const query of QUERIES) {
      const { hits, first, second } = await compared("PostgreSQL", indexed, scanning, query);
      const row = `| \`${JSON.stringify(query)}\` | ${hits} | ${first.toFixed(1)} | ${second.toFixed(1)} | ${(second / first).toFixed(1)}x |`;
      console.log(row);
      lines.push(row);
    }
  }
  if (!costOnly && !scanOnly) {
    const sqlite = new SqliteStore({ path: join(tmp, "search.db") });
    await measure("SqliteStore", sqlite);
    await sqlite.close();
    const postgresStore = new PostgresStore({ pool: pool(), table: "search_files" });
    await measure("PostgresStore", postgresStore);
    await postgresStore.close();
  }

  if (!scanOnly) {
    lines.push(
      "",
      `## Write cost of keeping the index (agent mix)`,
      "",
      `Median of ${MIX_ROUNDS} runs of ${config.mix.durationMs} ms, every command run on a store with the index and one without, in alternating order (per side: the median time of each command kind, weighted by how often it ran), ${config.mix.files} files of ${config.mix.linesPerFile} lines. Cost = ops/s without ÷ ops/s with (target ≤ 1.15x).`,
      "",
      "| store | ops/s with index | ops/s without | cost |",
      "|---|---:|---:|---:|",
    );
    let files = 0;
    const sides: { name: string; with: () => Promise<MemoryStore>; without: () => Promise<MemoryStore> }[] = [
      {
        name: "SqliteStore",
        with: async () => new SqliteStore({ path: join(tmp, `mix-${++files}.db`) }),
        without: async () => {
          const path = join(tmp, `mix-${++files}.db`);
          const store = new SqliteStore({ path });
          await store.check?.();
          const db = new Database(path);
          db.exec(`DROP TRIGGER mem_search_insert; DROP TRIGGER mem_search_update; DROP TRIGGER mem_search_delete;
            DROP TABLE mem_search;`);
          db.close();
          return store;
        },
      },
      {
        name: "PostgresStore",
        with: async () => new PostgresStore({ pool: pool(), table: `mix_${++tables}` }),
        without: async () => {
          const store = new PostgresStore({ pool: pool(), table: `mix_${++tables}`, searchIndex: false });
          await store.check?.();
          return store;
        },
      },
    ];
    const rows = await pairedRates(
      sides,
      async (side) => ({
        on: { store: await side.with(), options: EXECUTE_OPTIONS },
        off: { store: await side.without(), options: EXECUTE_OPTIONS },
      }),
      { rounds: MIX_ROUNDS, config, fatal: () => true },
    );
    lines.push(...rows);
  }
} finally {
  await Promise.allSettled(pools.map((p) => p.end()));
  await postgres.stop();
  rmSync(tmp, { recursive: true, force: true });
}
// --cost writes the cost table alone, under its own name.
const written = costOnly
  ? lines.slice(lines.indexOf("## Write cost of keeping the index (agent mix)"))
  : scanOnly
    ? lines.slice(lines.indexOf("## PostgreSQL without the index (`searchIndex: false`)"))
    : lines;
const suffix = costOnly ? "-cost" : scanOnly ? "-scan" : "";
writeFileSync(
  new URL(`../results/search${suffix}${quick ? "-quick" : ""}.md`, import.meta.url),
  `${written.join("\n")}\n`,
);
