/**
 * `pnpm bench:paging [--rounds=N] [--lines=N] [--postgres] [--redis] [--uncached]`: view_range windows over one long
 * file, the SDK's own helper (`BetaLocalFilesystemMemoryTool`) against `executeCommand` over InMemoryStore,
 * FsStore and SqliteStore (and PostgresStore, RedisStore with the flags, on servers started for the run),
 * in one process, taking turns of ten views within each round so all see the same machine load. Reports
 * per-round ops/s, each store's median ratio to the helper and the load average; asserts nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, startRedis } from "@mem/testkit";
import { anchorBackend } from "./anchor.js";
import { fsBackend, memoryBackend, postgresBackend, redisBackend, sqliteBackend } from "./ours.js";
import { PgCounters } from "./pg-counters.js";
import { RedisCounters } from "./redis-counters.js";
import type { Backend, Tool } from "./subject.js";

const arg = (name: string, fallback: number): number => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.slice(name.length + 3)) : fallback;
};
const rounds = arg("rounds", 7);
const withPostgres = process.argv.includes("--postgres");
const withRedis = process.argv.includes("--redis");
// Stores keep no lines between windows (a budget of one byte): every view reads the file, as when it
// changes between views.
const uncached = process.argv.includes("--uncached");
const windows = uncached ? { lineCacheBytes: 1 } : {};
const lines = arg("lines", 100_000);
const pageLines = 100;
const opsPerRound = arg("ops", 200);
const FILLER = "the quick brown fox jumps over the lazy dog";
const path = "/memories/logs/long.log";

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Pages through the file `count` times from line `first`; the milliseconds it took. */
const page = async (tool: Tool, first: number, count: number): Promise<number> => {
  let start = first;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const result = await tool.exec({ command: "view", path, view_range: [start, start + pageLines - 1] });
    if (result.isError) throw new Error(`view_range failed: ${result.content.slice(0, 200)}`);
    start = start + pageLines > lines ? 1 : start + pageLines;
  }
  return performance.now() - started;
};

/** Views per turn: within a round the tools take turns of this many, so that all see the same load. */
const TURN = 10;

const main = async () => {
  const tmpDir = mkdtempSync(join(tmpdir(), "mem-bench-paging-"));
  const load = [loadavg()[0]!];
  const servers: (() => Promise<unknown>)[] = [];
  try {
    const text = `${Array.from({ length: lines }, (_, i) => `log line ${i + 1}: ${FILLER}`).join("\n")}\n`;
    const env = { tmpDir };
    const backends: Record<string, Backend> = {
      sdk: await anchorBackend({ tmpDir }),
      memory: await memoryBackend(),
      fs: await fsBackend(env),
      sqlite: await sqliteBackend(env, windows),
    };
    if (withPostgres) {
      const server = await startPostgres();
      servers.push(() => server.stop());
      backends["postgres"] = await postgresBackend(new PgCounters(server.url), windows);
    }
    if (withRedis) {
      const server = await startRedis();
      servers.push(() => server.stop());
      backends["redis"] = await redisBackend(
        { tmpDir, redisUrl: server.url },
        new RedisCounters(server.url),
        windows,
      );
    }
    const names = Object.keys(backends);
    const stores = names.filter((name) => name !== "sdk");
    const tools: Record<string, Tool> = {};
    for (const name of names) {
      const tool = await backends[name]!.open("paging");
      tools[name] = tool;
      const created = await tool.exec({ command: "create", path, file_text: text });
      if (created.isError) throw new Error(`seeding ${name} failed: ${created.content.slice(0, 200)}`);
      await page(tool, 1, opsPerRound); // warm-up
    }
    const rates = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
      keyof typeof backends,
      number[]
    >;
    const ratios = Object.fromEntries(stores.map((name) => [name, [] as number[]])) as Record<
      string,
      number[]
    >;
    try {
      for (let r = 0; r < rounds; r++) {
        const first = 1 + ((r * opsPerRound * pageLines) % lines);
        // The order rotates each round, so that no store always runs right after another.
        const order = names.map((_, i) => names[(i + r) % names.length]!);
        const spent = Object.fromEntries(names.map((name) => [name, 0])) as Record<
          keyof typeof backends,
          number
        >;
        for (let done = 0; done < opsPerRound; done += TURN) {
          const from = 1 + ((first - 1 + done * pageLines) % lines);
          for (const name of order)
            spent[name]! += await page(tools[name]!, from, Math.min(TURN, opsPerRound - done));
        }
        const rate = Object.fromEntries(
          names.map((name) => [name, (opsPerRound * 1000) / spent[name]!]),
        ) as Record<keyof typeof backends, number>;
        for (const name of names) rates[name]!.push(rate[name]!);
        for (const name of stores) ratios[name]!.push(rate[name]! / rate.sdk!);
        load.push(loadavg()[0]!);
        console.log(
          `round ${r + 1}: ${names.map((name) => `${name} ${rate[name]!.toFixed(0)} ops/s`).join(", ")}`,
        );
      }
    } finally {
      await Promise.all(names.map((name) => backends[name]!.close()));
    }
    console.log(
      `paging ${lines.toLocaleString("en-US")} lines, windows of ${pageLines}, ${rounds} rounds of ${opsPerRound}` +
        `${uncached ? ", no lines kept between windows" : ""}, ` +
        `load average ${median(load).toFixed(1)} (target >= 1.5x the SDK helper):`,
    );
    console.log(`  sdk: median ${median(rates.sdk!).toFixed(0)} ops/s`);
    for (const name of stores) {
      console.log(
        `  ${name}: median ${median(rates[name]!).toFixed(0)} ops/s, median ratio ${median(ratios[name]!).toFixed(2)}x`,
      );
    }
  } finally {
    for (const stop of servers) await stop().catch(() => undefined);
    rmSync(tmpDir, { recursive: true, force: true });
  }
};

await main();
