/**
 * `bench:mix-pair`: the agent mix of `pnpm bench` (one agent) on two implementations at once, command by
 * command: each command runs on one, then on the other, the order alternating, and each side is timed.
 * Load on the machine then hits both alike, which separate 3-second runs in separate processes cannot
 * promise (their ratios move by ±15% between runs here). The ratio of each round is the second
 * implementation's ops/s over the first's, from the median time of each command kind weighted by how
 * often it ran; the table reports every round and their median.
 *
 * Usage: `npx -y pnpm@10 --filter @mem/bench bench:mix-pair [--pair=raw-redis,redis] [--rounds=5]
 * [--seconds=3] [--quick]`. Both sides must answer alike (an error on one side and not the other stops
 * the run). Results go to `bench/results/mix-pair-<first>-<second>.md` (`-quick` with `--quick`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPostgres, startRedis } from "@mem/testkit";
import { defaultConfig, quickConfig } from "./config.js";
import { flag } from "./flags.js";
import { createBackend, type Hooks, IMPLEMENTATIONS } from "./implementations.js";
import { median, pairedTools, type Totals, weightedMs } from "./paired.js";
import { PgCounters } from "./pg-counters.js";
import { RedisCounters } from "./redis-counters.js";
import { type Backend, type ChildEnv, Unavailable } from "./subject.js";
import { agentMix } from "./workloads.js";

const quick = process.argv.includes("--quick");
const names = (flag("pair") ?? "raw-redis,redis").split(",");
const rounds = Number(flag("rounds") ?? (quick ? 2 : 5));
const seconds = Number(flag("seconds") ?? (quick ? 0.3 : 3));
const [first, second] = names.map((name) => IMPLEMENTATIONS.find((impl) => impl.name === name));
if (names.length !== 2 || !first || !second) {
  throw new TypeError(
    `--pair: two of ${IMPLEMENTATIONS.map((impl) => impl.name).join(", ")}, comma-separated`,
  );
}
if (!Number.isInteger(rounds) || rounds < 1) throw new TypeError("--rounds: a whole number from 1");
if (!(seconds > 0)) throw new TypeError("--seconds: a positive number");
if ([first, second].some((impl) => impl.needs === "s3")) {
  throw new TypeError("--pair: the S3 implementations need the main bench's proxy (`pnpm bench --only=...`)");
}

const base = quick ? quickConfig : defaultConfig;
// Every command runs twice, so the time box holds both sides.
const config = { ...base, mix: { ...base.mix, durationMs: seconds * 2_000 } };
const needs = new Set([first.needs, second.needs]);
const tmp = mkdtempSync(join(tmpdir(), "mem-bench-mix-pair-"));
const stops: (() => Promise<void>)[] = [];
const loadAtStart = loadavg()[0]!.toFixed(1);
const rows: string[] = [];
const ratios: number[] = [];
try {
  const env: ChildEnv = { tmpDir: tmp };
  if (needs.has("redis")) {
    const server = await startRedis();
    stops.push(() => server.stop());
    env.redisUrl = server.url;
  }
  if (needs.has("postgres")) {
    const server = await startPostgres();
    stops.push(() => server.stop());
    env.postgresUrl = server.url;
  }
  const redis = env.redisUrl ? new RedisCounters(env.redisUrl) : undefined;
  const postgres = env.postgresUrl ? new PgCounters(env.postgresUrl) : undefined;
  stops.unshift(async () => {
    await redis?.close();
    await postgres?.close();
  });
  const hooks: Hooks = {
    redis,
    postgres,
    s3RequestCounters: async () => ({}),
    s3Client: () => Promise.reject(new Unavailable("no S3 server")),
  };
  const backends: Backend[] = [];
  for (const impl of [first, second]) {
    mkdirSync(join(tmp, impl.name), { recursive: true });
    backends.push(await createBackend(impl.name, { ...env, tmpDir: join(tmp, impl.name) }, hooks));
  }
  stops.unshift(async () => {
    for (const backend of backends) await backend.close();
  });
  const [a, b] = backends as [Backend, Backend];
  for (let round = 0; round < rounds; round++) {
    // Each round seeds its files afresh, in a namespace of its own; on Redis the last round's keys go
    // first, since the raw baseline lists a directory with a SCAN of the whole keyspace.
    await redis?.flush();
    const totals: Totals = { on: new Map(), off: new Map() };
    const paired = pairedTools(
      async (ns) => ({
        on: await a.open(`${ns}-${round}`),
        off: await b.open(`${ns}-${round}`),
        same: "outcome",
      }),
      totals,
    );
    // A command the two sides answer differently throws out of the mix (pairedTools).
    await agentMix(paired, config);
    const rateA = 1000 / weightedMs(totals.on);
    const rateB = 1000 / weightedMs(totals.off);
    const commands = [...totals.on.values()].reduce((sum, list) => sum + list.length, 0);
    ratios.push(rateB / rateA);
    const row = `| ${round + 1} | ${commands.toLocaleString("en")} | ${Math.round(rateA).toLocaleString("en")} | ${Math.round(rateB).toLocaleString("en")} | ${(rateB / rateA).toFixed(3)}x |`;
    console.log(row);
    // Where the ratio comes from: each kind's median on both sides (the console only).
    for (const [kind, times] of totals.on) {
      const other = totals.off.get(kind) ?? [];
      console.log(
        `  ${kind}: ${times.length} × ${median(times).toFixed(3)} ms against ${median(other).toFixed(3)} ms`,
      );
    }
    rows.push(row);
  }
} finally {
  for (const stop of stops) await stop().catch(() => undefined);
  rmSync(tmp, { recursive: true, force: true });
}

const lines = [
  `# Agent mix, paired: ${first.name} and ${second.name}${quick ? " (quick)" : ""}`,
  "",
  `\`bench:mix-pair --pair=${first.name},${second.name}\`, ${new Date().toISOString().slice(0, 16).replace("T", " ")}; load average ${loadAtStart} → ${loadavg()[0]!.toFixed(1)}. One agent; every command of \`pnpm bench\`'s agent mix runs on both (${first.label}; ${second.label}), in alternating order, for about ${seconds} s of each per round, after ${config.mix.warmupOps} warm-up commands on ${config.mix.files.toLocaleString("en")} seeded notes. Ops/s are from the median time of each command kind, weighted by how often it ran.`,
  "",
  `| round | commands | ${first.name} ops/s | ${second.name} ops/s | ratio |`,
  "|---:|---:|---:|---:|---:|",
  ...rows,
  "",
  `Median ratio of ${rounds} rounds: **${median(ratios).toFixed(3)}x** (${Math.min(...ratios).toFixed(3)}x to ${Math.max(...ratios).toFixed(3)}x).`,
  "",
];
const out = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "results",
  `mix-pair-${first.name}-${second.name}${quick ? "-quick" : ""}.md`,
);
writeFileSync(out, lines.join("\n"));
console.log(lines.slice(-2).join("\n"));
