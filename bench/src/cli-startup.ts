/**
 * `pnpm bench:cli [--runs=N]`: start-up time of the built `mem` command (packages/cli/bin/mem.js; build
 * it first) against `node -e ''`, for `mem --version` and `mem tree` over a small fs store. The three
 * commands run in turn, round after round, so all see the same machine load; reports medians, the
 * difference against bare Node (target: at most 300 ms) and the load average. Asserts nothing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const runsArg = process.argv.find((a) => a.startsWith("--runs="));
const runs = runsArg ? Number(runsArg.slice("--runs=".length)) : 21;
const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, "..", "..", "packages", "cli", "bin", "mem.js");
const TARGET_MS = 300;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Runs `node args` once; its wall time in ms. */
const time = (args: readonly string[], cwd: string): number => {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd, encoding: "utf8" });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${result.stderr.trim()}`);
  return elapsed;
};

const main = () => {
  if (!existsSync(join(here, "..", "..", "packages", "cli", "dist", "main.js"))) {
    throw new Error("packages/cli is not built: run `pnpm --filter @mem/cli... build` first");
  }
  const dir = mkdtempSync(join(tmpdir(), "mem-bench-cli-"));
  try {
    const store = `fs:${join(dir, "store")}`;
    const put = spawnSync(
      process.execPath,
      [bin, "run", store, JSON.stringify({ command: "create", path: "/memories/a.md", file_text: "hi\n" })],
      { encoding: "utf8" },
    );
    if (put.status !== 0) throw new Error(`seeding failed: ${put.stderr.trim()}`);
    const cases = {
      "node -e ''": ["-e", ""],
      "mem --version": [bin, "--version"],
      "mem tree fs:": [bin, "tree", store],
    } as const;
    const times = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
    const load = [loadavg()[0]!];
    for (const args of Object.values(cases)) time(args, dir); // warm the file cache
    for (let r = 0; r < runs; r++) {
      for (const [name, args] of Object.entries(cases)) times.get(name)!.push(time(args, dir));
      load.push(loadavg()[0]!);
    }
    const bare = median(times.get("node -e ''")!);
    console.log(`CLI start-up, ${runs} runs each, medians (load average ${median(load).toFixed(1)}):`);
    for (const [name, values] of times) {
      const m = median(values);
      const extra =
        name === "node -e ''"
          ? ""
          : `, +${(m - bare).toFixed(0)} ms over node -e '' (target <= ${TARGET_MS})`;
      console.log(`  ${name.padEnd(14)} ${m.toFixed(0)} ms${extra}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

main();
