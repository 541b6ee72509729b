/**
 * `bench:load`: a memory service under load (load-run.ts), every store beside its raw driver at the same
 * levels, with their ratios against the targets.
 *
 * Usage: `npx -y pnpm@10 --filter @mem/bench bench:load [--tenants=1000] [--levels=8,32,64] [--agents=N]
 * [--seconds=20] [--hot=0.25] [--only=postgres,raw-postgres,...] [--quick] [--out=load.md]`. `--agents=N`
 * in place of `--levels` runs 1, 4, 16, ... up to N. Results go to `bench/results/load.md`
 * (`load-quick.md` with `--quick`) with an SVG chart of p99 latency against load.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { flag } from "./flags.js";
import { DEFAULT_LEVELS, runLoad } from "./load-run.js";

const levelsUpTo = (max: number): number[] => {
  const levels: number[] = [];
  for (let n = 1; n < max; n *= 4) levels.push(n);
  levels.push(max);
  return levels;
};

const quick = process.argv.includes("--quick");
const agents = flag("agents");
const levels =
  flag("levels")?.split(",").map(Number) ??
  (agents === undefined ? DEFAULT_LEVELS : levelsUpTo(Number(agents)));
const out = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "results",
  flag("out") ?? (quick ? "load-quick.md" : "load.md"),
);
const svgFile = out.replace(/\.md$/, ".svg");

const report = await runLoad({
  tenants: Number(flag("tenants") ?? (quick ? 20 : 1_000)),
  levels: levels.filter((n) => n > 0),
  seconds: Number(flag("seconds") ?? (quick ? 1 : 20)),
  hot: Number(flag("hot") ?? 0.25),
  only: flag("only")?.split(","),
  quick,
  svgFile: svgFile.split("/").at(-1)!,
  log: (line) => console.log(line),
});
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, report.markdown);
writeFileSync(svgFile, report.svg);
console.log(report.markdown);
