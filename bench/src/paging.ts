/**
 * `pnpm bench:paging [--rounds=N] [--lines=N]`: view_range windows over one long file, the SDK's own
 * helper (`BetaLocalFilesystemMemoryTool`) against `executeCommand` over InMemoryStore, alternated in one
 * process round by round so both see the same machine load. Reports per-round ops/s, the median ratio and
 * the load average; asserts nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { anchorBackend } from "./anchor.js";
import { memoryBackend } from "./ours.js";
import type { Tool } from "./subject.js";

const arg = (name: string, fallback: number): number => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.slice(name.length + 3)) : fallback;
};
const rounds = arg("rounds", 7);
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
  try {
    const text = `${Array.from({ length: lines }, (_, i) => `log line ${i + 1}: ${FILLER}`).join("\n")}\n`;
    const tools: Record<"sdk" | "memory", Tool> = {
      sdk: await (await anchorBackend({ tmpDir })).open("paging"),
      memory: await (await memoryBackend()).open("paging"),
    };
    for (const tool of Object.values(tools)) {
      const created = await tool.exec({ command: "create", path, file_text: text });
      if (created.isError) throw new Error(`seeding failed: ${created.content.slice(0, 200)}`);
      await round(tool, 1); // warm-up
    }
    const rates = { sdk: [] as number[], memory: [] as number[] };
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const first = 1 + ((r * opsPerRound * pageLines) % lines);
      const sdk = await round(tools.sdk, first);
      const memory = await round(tools.memory, first);
      rates.sdk.push(sdk);
      rates.memory.push(memory);
      ratios.push(memory / sdk);
      load.push(loadavg()[0]!);
      console.log(
        `round ${r + 1}: sdk ${sdk.toFixed(0)} ops/s, memory ${memory.toFixed(0)} ops/s, ratio ${(memory / sdk).toFixed(2)}x`,
      );
    }
    console.log(
      `paging ${lines.toLocaleString("en-US")} lines, windows of ${pageLines}, ${rounds} rounds of ${opsPerRound}: ` +
        `median sdk ${median(rates.sdk).toFixed(0)} ops/s, memory ${median(rates.memory).toFixed(0)} ops/s, ` +
        `median ratio ${median(ratios).toFixed(2)}x (target >= 1.5x); load average ${median(load).toFixed(1)}`,
    );
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
};

await main();
