/**
 * `pnpm bench:paging [--rounds=N] [--lines=N] [--postgres]`: view_range windows over one long file, the
 * SDK's own helper (`BetaLocalFilesystemMemoryTool`) against `executeCommand` over InMemoryStore (and
 * PostgresStore with `--postgres`), alternated in one process round by round so all see the same machine
 * load. Reports per-round ops/s, the median ratios and the load average; asserts nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres } from "@mem/testkit";
import { anchorBackend } from "./anchor.js";
import { memoryBackend, postgresBackend } from "./ours.js";
import { PgCounters } from "./pg-counters.js";
import type { Tool } from "./subject.js";

const arg = (name: string, fallback: number): number => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.slice(name.length + 3)) : fallback;
};
const rounds = arg("rounds", 7);
const lines = arg("lines", 100_000);
const pageLines = 100;
const opsPerRound = arg("ops", 200);
/** `--postgres`: PostgresStore too, on a server testkit starts (one connection, as a tool instance holds). */
const withPostgres = process.argv.includes("--postgres");
const FILLER = "the quick brown fox jumps over the lazy dog";
const path = "/memories/logs/long.log";

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Pages through the file `opsPerRound` times from line `first`; ops/s. */
const round = async (tool: Tool, first: number): Promise<number> => {
  let start = first;
  const started = performance.now();
  for (let i = 0; i < opsPerRound; i++) {
    const result = await tool.exec({ command: "view", path, view_range: [start, start + pageLines - 1] });
    if (result.isError) throw new Error(`view_range failed: ${result.content.slice(0, 200)}`);
    start = start + pageLines > lines ? 1 : start + pageLines;
  }
  return (opsPerRound * 1000) / (performance.now() - started);
};

const main = async () => {
  const tmpDir = mkdtempSync(join(tmpdir(), "mem-bench-paging-"));
  const load = [loadavg()[0]!];
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const text = `${Array.from({ length: lines }, (_, i) => `log line ${i + 1}: ${FILLER}`).join("\n")}\n`;
    const tools: Record<string, Tool> = {
      sdk: await (await anchorBackend({ tmpDir })).open("paging"),
      memory: await (await memoryBackend()).open("paging"),
    };
    if (withPostgres) {
      const server = await startPostgres();
      stops.push(() => server.stop());
      const counters = new PgCounters(server.url);
      const backend = await postgresBackend(counters);
      stops.unshift(() => backend.close());
      tools["postgres"] = await backend.open("paging");
    }
    const stores = Object.keys(tools).filter((name) => name !== "sdk");
    for (const tool of Object.values(tools)) {
      const created = await tool.exec({ command: "create", path, file_text: text });
      if (created.isError) throw new Error(`seeding failed: ${created.content.slice(0, 200)}`);
      await round(tool, 1); // warm-up
    }
    const rates: Record<string, number[]> = Object.fromEntries(Object.keys(tools).map((name) => [name, []]));
    const ratios: Record<string, number[]> = Object.fromEntries(stores.map((name) => [name, []]));
    for (let r = 0; r < rounds; r++) {
      const first = 1 + ((r * opsPerRound * pageLines) % lines);
      const sdk = await round(tools["sdk"]!, first);
      rates["sdk"]!.push(sdk);
      const parts = [`sdk ${sdk.toFixed(0)} ops/s`];
      for (const name of stores) {
        const rate = await round(tools[name]!, first);
        rates[name]!.push(rate);
        ratios[name]!.push(rate / sdk);
        parts.push(`${name} ${rate.toFixed(0)} ops/s (${(rate / sdk).toFixed(2)}x)`);
      }
      load.push(loadavg()[0]!);
      console.log(`round ${r + 1}: ${parts.join(", ")}`);
    }
    const medians = Object.keys(tools).map((name) => `${name} ${median(rates[name]!).toFixed(0)} ops/s`);
    const ratioText = stores.map((name) => `${name} ${median(ratios[name]!).toFixed(2)}x`);
    console.log(
      `paging ${lines.toLocaleString("en-US")} lines, windows of ${pageLines}, ${rounds} rounds of ${opsPerRound}: ` +
        `median ${medians.join(", ")}; median ratio to the SDK helper ${ratioText.join(", ")} ` +
        `(target >= 1.5x in memory, >= 1x on Postgres); load average ${median(load).toFixed(1)}`,
    );
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
    rmSync(tmpDir, { recursive: true, force: true });
  }
};

await main();
