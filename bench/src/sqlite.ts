/**
 * `@mem/sqlite` against the SDK's filesystem helper (the anchor) and `@mem/fs`, in one process and one
 * run so that the ratios share the machine's load: the agent mix, 16 agents on distinct files and on one
 * file, listing scale (1k/10k/50k files, flat and deep), create and str_replace against the durable-write
 * floor, and the longest event-loop stall while SQLite works (`monitorEventLoopDelay`).
 *
 * Run: `npx -y pnpm@10 --filter @mem/bench bench:sqlite [--quick]` (writes `results/sqlite.md`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type IntervalHistogram, monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import { executeCommand } from "@mem/core";
import { SqliteStore } from "@mem/sqlite";
import { anchorBackend } from "./anchor.js";
import { type BenchConfig, defaultConfig, quickConfig } from "./config.js";
import { fsBackend, sqliteBackend, toolOver } from "./ours.js";
import { contentOf, floorWrite, type Layout, pathOf, TEXT } from "./scale.js";
import type { Backend, ChildEnv } from "./subject.js";
import { agentMix, concurrentAgents, type PhaseResult } from "./workloads.js";

const quick = process.argv.includes("--quick");
const config: BenchConfig = quick ? quickConfig : defaultConfig;
const base = mkdtempSync(join(tmpdir(), "mem-bench-sqlite-"));
const env: ChildEnv = { tmpDir: base };
const lines: string[] = [];
const log = (line: string) => console.error(line);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const timed = async (action: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await action();
  return performance.now() - started;
};
const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);

/** Every agent opens a store of its own (a process per agent), so nothing is shared but the file. */
const sqlitePerAgent = async (): Promise<Backend> => {
  const stores: SqliteStore[] = [];
  mkdirSync(join(base, "sqlite-separate"), { recursive: true });
  return {
    async open(ns) {
      const store = new SqliteStore({ path: join(base, "sqlite-separate", `${ns}.db`) });
      stores.push(store);
      return toolOver(store);
    },
    async close() {
      await Promise.all(stores.map((store) => store.close()));
    },
  };
};

/** The longest event-loop delay (ms) while `body` runs. */
const stallDuring = async <T>(body: () => Promise<T>): Promise<[T, number]> => {
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  try {
    const result = await body();
    return [result, histogram.max / 1e6];
  } finally {
    histogram.disable();
  }
};

let longestStall = 0;
const stalls: string[] = [];
const measured = async (
  name: string,
  what: string,
  body: () => Promise<PhaseResult>,
): Promise<PhaseResult> => {
  log(`${name}: ${what}`);
  const [result, stall] = await stallDuring(body);
  if (name.startsWith("sqlite")) {
    longestStall = Math.max(longestStall, stall);
    stalls.push(`| ${name} | ${what} | ${f1(stall)} |`);
  }
  return result;
};

const throughput = (phase: PhaseResult): number => phase.latency.opsPerSec;

try {
  const backends: Record<string, Backend> = {
    anchor: await anchorBackend(env),
    fs: await fsBackend(env),
    sqlite: await sqliteBackend(env),
    "sqlite-separate": await sqlitePerAgent(),
  };

  // Agent mix.
  const mix: Record<string, PhaseResult> = {};
  for (const name of ["anchor", "fs", "sqlite"]) {
    mix[name] = await measured(name, "agent mix", () => agentMix(backends[name]!, config));
  }
  // 16 agents, distinct files and one file.
  const distinct: Record<string, PhaseResult> = {};
  const shared: Record<string, PhaseResult> = {};
  for (const name of ["anchor", "fs", "sqlite", "sqlite-separate"]) {
    distinct[name] = await measured(name, "16 agents, distinct files", () =>
      concurrentAgents(backends[name]!, config, false),
    );
    shared[name] = await measured(name, "16 agents, one file", () =>
      concurrentAgents(backends[name]!, config, true),
    );
  }
  for (const backend of Object.values(backends)) await backend.close();

  // Listing scale: anchor reads the tree from disk, sqlite from its table.
  const sizes = quick ? [1_000] : [1_000, 10_000, 50_000];
  const scaleRows: string[] = [];
  for (const files of sizes) {
    for (const layout of ["flat", "deep"] as Layout[]) {
      log(`scale: ${files} files, ${layout}`);
      const dir = join(base, `scale-${files}-${layout}`);
      const paths = Array.from({ length: files }, (_, i) => pathOf(layout, files, i));
      for (const path of paths) {
        const file = join(dir, "anchor", "memories", path.slice("/memories/".length));
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, contentOf(path));
      }
      const store = new SqliteStore({ path: join(dir, "memory.db") });
      for (let i = 0; i < paths.length; i += 1_000) {
        await Promise.all(
          paths
            .slice(i, i + 1_000)
            .map((path) => store.write(path, new TextEncoder().encode(contentOf(path)), { ifAbsent: true })),
        );
      }
      const anchor = await BetaLocalFilesystemMemoryTool.init(join(dir, "anchor"));
      const view = { command: "view", path: "/memories" } as const;
      const subjects: Array<[string, () => Promise<unknown>]> = [
        ["anchor", () => anchor.view(view)],
        ["sqlite", () => executeCommand(store, view)],
      ];
      const samples = new Map<string, number[]>(subjects.map(([name]) => [name, []]));
      for (const [, run] of subjects) await run();
      const rounds = files >= 50_000 ? 5 : files >= 10_000 ? 9 : 21;
      let stall = 0;
      for (let round = 0; round < rounds; round++) {
        for (const [name, run] of subjects) {
          if (name === "sqlite") {
            const [ms, delay] = await stallDuring(() => timed(run));
            stall = Math.max(stall, delay);
            samples.get(name)!.push(ms);
          } else samples.get(name)!.push(await timed(run));
        }
      }
      longestStall = Math.max(longestStall, stall);
      stalls.push(`| sqlite | view /memories, ${files} files ${layout} | ${f1(stall)} |`);
      const a = median(samples.get("anchor")!);
      const s = median(samples.get("sqlite")!);
      scaleRows.push(`| ${files} | ${layout} | ${f1(a)} | ${f1(s)} | ${f2(a / s)}x |`);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  // Durable-write floor: create and str_replace through executeCommand, interleaved with the floor.
  log("durable-write floor");
  const floorDir = join(base, "floor");
  mkdirSync(floorDir);
  const floorStore = new SqliteStore({ path: join(base, "floor.db") });
  await executeCommand(floorStore, { command: "create", path: "/memories/edit.md", file_text: TEXT });
  const floor: number[] = [];
  const create: number[] = [];
  const replace: number[] = [];
  const rounds = quick ? 30 : 200;
  // The floor's own fsyncs block the loop by design: only the store's commands are watched.
  let floorStall = 0;
  const watched = async (run: () => Promise<unknown>): Promise<number> => {
    const [ms, stall] = await stallDuring(() => timed(run));
    floorStall = Math.max(floorStall, stall);
    return ms;
  };
  for (let i = 0; i < rounds; i++) {
    floor.push(await timed(async () => floorWrite(floorDir, `f${i}.md`, TEXT)));
    create.push(
      await watched(() =>
        executeCommand(floorStore, { command: "create", path: `/memories/c${i}.md`, file_text: TEXT }),
      ),
    );
    const [from, to] = i % 2 === 0 ? ["line 7:", "LINE 7:"] : ["LINE 7:", "line 7:"];
    replace.push(
      await watched(() =>
        executeCommand(floorStore, {
          command: "str_replace",
          path: "/memories/edit.md",
          old_str: from,
          new_str: to,
        }),
      ),
    );
  }
  await floorStore.close();
  longestStall = Math.max(longestStall, floorStall);
  stalls.push(`| sqlite | create and str_replace, one at a time | ${f1(floorStall)} |`);

  const ratio = (x: number, y: number) => `${f2(x / y)}x`;
  const lost = (phase: PhaseResult) => `${phase.lostUpdates ?? 0}`;
  lines.push(
    `# @mem/sqlite against the SDK helper and @mem/fs${quick ? " (--quick)" : ""}`,
    "",
    `${new Date().toISOString()}, Node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}. One process, one run; ratios are of numbers measured in that run.`,
    "SqliteStore: WAL, `synchronous = FULL` (the WAL is fsynced before a change is answered), one store per",
    "process shared by its agents; `sqlite-separate` opens a store (a connection and a thread) per agent, as",
    "separate processes would.",
    "",
    "## Throughput",
    "",
    "| workload | anchor ops/s | fs ops/s | sqlite ops/s | sqlite-separate ops/s | sqlite / anchor | sqlite / fs | lost (anchor, fs, sqlite, separate) |",
    "|---|---|---|---|---|---|---|---|",
    `| agent mix (errors: ${mix["sqlite"]!.errors} sqlite, ${mix["anchor"]!.errors} anchor) | ${f1(throughput(mix["anchor"]!))} | ${f1(throughput(mix["fs"]!))} | ${f1(throughput(mix["sqlite"]!))} | – | ${ratio(throughput(mix["sqlite"]!), throughput(mix["anchor"]!))} | ${ratio(throughput(mix["sqlite"]!), throughput(mix["fs"]!))} | – |`,
    ...(
      [
        ["16 agents, distinct files", distinct],
        ["16 agents, one file", shared],
      ] as const
    ).map(
      ([what, r]) =>
        `| ${what} | ${f1(throughput(r["anchor"]!))} | ${f1(throughput(r["fs"]!))} | ${f1(throughput(r["sqlite"]!))} | ${f1(throughput(r["sqlite-separate"]!))} | ${ratio(throughput(r["sqlite"]!), throughput(r["anchor"]!))} | ${ratio(throughput(r["sqlite"]!), throughput(r["fs"]!))} | ${lost(r["anchor"]!)}, ${lost(r["fs"]!)}, ${lost(r["sqlite"]!)}, ${lost(r["sqlite-separate"]!)} |`,
    ),
    "",
    "## Listing scale (view /memories, p50 ms)",
    "",
    "| files | layout | anchor | sqlite | anchor / sqlite |",
    "|---|---|---|---|---|",
    ...scaleRows,
    "",
    "## Against the durable-write floor (p50 ms)",
    "",
    `${rounds} interleaved rounds: the floor is temporary file, write, fsync, close, rename, directory fsync.`,
    "",
    "| floor | sqlite create | sqlite str_replace | create / floor | str_replace / floor |",
    "|---|---|---|---|---|",
    `| ${f2(median(floor))} | ${f2(median(create))} | ${f2(median(replace))} | ${f2(median(create) / median(floor))}x | ${f2(median(replace) / median(floor))}x |`,
    "",
    "## Longest event-loop stall while SQLite works (ms, `monitorEventLoopDelay`, resolution 1 ms)",
    "",
    "| store | phase | max delay |",
    "|---|---|---|",
    ...stalls,
    "",
    `Longest: ${f1(longestStall)} ms.`,
    "",
  );
  const text = lines.join("\n");
  const out = join(
    dirname(dirname(fileURLToPath(import.meta.url))),
    "results",
    quick ? "sqlite-quick.md" : "sqlite.md",
  );
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(text);
} finally {
  rmSync(base, { recursive: true, force: true });
}
