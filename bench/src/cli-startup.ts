/**
 * `pnpm bench:cli [--runs=N] [--tarballs=<dir>] [--bin-only]`: start-up time of `mem --version` and
 * `mem tree` over a small fs store against `node -e ''`, for two installs of `mem`:
 *
 * - bin: the workspace's built `packages/cli/bin/mem.js` (build it first);
 * - tarballs: `node_modules/.bin/mem` of a fresh npm project that installed @mem/cli's release tarball with
 *   the @mem/* tarballs it depends on (cli-tarballs.ts). `--tarballs=<dir>` takes them from the folder
 *   `node scripts/pack-check.mjs --out <dir>` left; without it they are packed first. `--bin-only` skips
 *   this install.
 *
 * Every command runs in turn, round after round, so all see the same machine load; reports the median wall
 * time, its difference against bare Node (target: at most 300 ms), the mean CPU time (user + system, which
 * other work on the machine barely moves) and the load average. Asserts nothing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { installCliFromTarballs } from "./cli-tarballs.js";
import { flag } from "./flags.js";

const runs = Number(flag("runs") ?? 21);
const tarballs = flag("tarballs");
const binOnly = process.argv.includes("--bin-only");
const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const bin = join(repo, "packages", "cli", "bin", "mem.js");
const TARGET_MS = 300;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * CPU seconds (user + system) of this process's children that have ended, from /proc (cutime + cstime, in
 * clock ticks of 10 ms): unlike wall time, barely moved by other work on the machine.
 */
const childrenCpuSeconds = (): number => {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / 100;
};

/** Runs `command args` once; its wall time and its CPU time, in ms. */
const time = (command: string, args: readonly string[], cwd: string): { wall: number; cpu: number } => {
  const cpu0 = childrenCpuSeconds();
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr.trim()}`);
  return { wall: elapsed, cpu: (childrenCpuSeconds() - cpu0) * 1000 };
};

const main = async () => {
  if (!existsSync(join(repo, "packages", "cli", "dist", "main.js"))) {
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
    const cases: Record<string, [string, string[]]> = {
      "node -e ''": [process.execPath, ["-e", ""]],
      "bin: mem --version": [process.execPath, [bin, "--version"]],
      "bin: mem tree fs:": [process.execPath, [bin, "tree", store]],
    };
    let source = "not measured (--bin-only)";
    if (!binOnly) {
      const project = join(dir, "project");
      console.log(
        `installing @mem/cli from tarballs${tarballs ? ` in ${tarballs}` : " (packing them first)"}...`,
      );
      // A relative folder is taken from where the command was typed (pnpm runs scripts in bench/).
      const folder = tarballs && resolve(process.env["INIT_CWD"] ?? process.cwd(), tarballs);
      const installed = await installCliFromTarballs(repo, project, folder);
      source = installed.source;
      // As a user runs it: the installed link, through its `#!/usr/bin/env node` line.
      cases["tarballs: mem --version"] = [installed.bin, ["--version"]];
      cases["tarballs: mem tree fs:"] = [installed.bin, ["tree", store]];
    }
    const times = new Map<string, number[]>(Object.keys(cases).map((name) => [name, []]));
    const cpu = new Map<string, number>(Object.keys(cases).map((name) => [name, 0]));
    const load = [loadavg()[0]!];
    for (const [command, args] of Object.values(cases)) time(command, args, dir); // warm the file cache
    for (let r = 0; r < runs; r++) {
      for (const [name, [command, args]] of Object.entries(cases)) {
        const { wall, cpu: used } = time(command, args, dir);
        times.get(name)!.push(wall);
        cpu.set(name, cpu.get(name)! + used);
      }
      load.push(loadavg()[0]!);
    }
    const bare = median(times.get("node -e ''")!);
    const bareCpu = cpu.get("node -e ''")! / runs;
    console.log(
      `CLI start-up, ${runs} runs each: median wall time, mean CPU time (load average ${median(load).toFixed(1)}):`,
    );
    console.log(`  tarballs: ${source}`);
    for (const [name, values] of times) {
      const m = median(values);
      const used = cpu.get(name)! / runs;
      const extra =
        name === "node -e ''"
          ? ""
          : `, +${(m - bare).toFixed(0)} ms over node -e '' (target <= ${TARGET_MS}: ${m - bare <= TARGET_MS ? "met" : "missed"}); CPU +${(used - bareCpu).toFixed(0)} ms`;
      console.log(`  ${name.padEnd(24)} ${m.toFixed(0)} ms, CPU ${used.toFixed(0)} ms${extra}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

await main();
