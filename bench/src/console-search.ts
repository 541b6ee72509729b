/**
 * The console's search under a pathological regular expression: the longest time the server's event loop
 * is held while `/api/search?regex=1&q=(.*)*X` runs over ordinary 60-character lines (exponential for a
 * backtracking engine, linear for re2js), against a substring search of the same files in the same
 * process. Target: no block over 50 ms. A ticker records the longest gap between two turns of the loop.
 *
 * Run: `npx -y pnpm@10 --filter @mem/bench bench:console-search` (writes `results/console-search.md`).
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { InMemoryStore } from "@mem/core";
import { startConsole } from "../../packages/cli/src/serve/server.js";

const TARGET_MS = 50;
const LINE = "an ordinary line of sixty characters, give or take a few...";
const RUNS = 5;

interface Case {
  name: string;
  files: number;
  linesPerFile: number;
}

const CASES: Case[] = [
  { name: "2,000 files of 20 lines", files: 2000, linesPerFile: 20 },
  { name: "one file of 17,000 lines (1 MiB)", files: 1, linesPerFile: 17_000 },
];

/** Runs `task` while a ticker measures the longest gap between turns of the event loop. */
const blocking = async (task: () => Promise<unknown>): Promise<{ longest: number; total: number }> => {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const started = performance.now();
  await task();
  const total = performance.now() - started;
  running = false;
  return { longest, total };
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

const rows: string[] = [];
for (const c of CASES) {
  const store = new InMemoryStore();
  const text = `${LINE}\n`.repeat(c.linesPerFile);
  for (let i = 0; i < c.files; i++) {
    await store.write(`/memories/f${i}.md`, new TextEncoder().encode(text), { ifAbsent: true });
  }
  const server = await startConsole(store);
  const search = async (query: string, regex: boolean) => {
    const url = `${server.url}api/search?q=${encodeURIComponent(query)}${regex ? "&regex=1" : ""}`;
    const page = (await (await fetch(url)).json()) as { searched: number };
    if (page.searched !== c.files) throw new Error(`searched ${page.searched} of ${c.files} files`);
  };
  const measured = {
    regex: [] as number[],
    plain: [] as number[],
    regexTotal: [] as number[],
    plainTotal: [] as number[],
  };
  for (let run = 0; run < RUNS; run++) {
    const plain = await blocking(() => search("X", false));
    const regex = await blocking(() => search("(.*)*X", true));
    measured.plain.push(plain.longest);
    measured.plainTotal.push(plain.total);
    measured.regex.push(regex.longest);
    measured.regexTotal.push(regex.total);
  }
  await server.close();
  const longest = Math.max(...measured.regex);
  rows.push(
    `| ${c.name} | ${median(measured.regex).toFixed(1)} | ${longest.toFixed(1)} | ${median(measured.plain).toFixed(1)} | ${median(measured.regexTotal).toFixed(0)} | ${median(measured.plainTotal).toFixed(0)} | ${(median(measured.regexTotal) / median(measured.plainTotal)).toFixed(1)}× | ${median(measured.regex) < TARGET_MS ? "met" : "missed"} |`,
  );
}

const report = `# The console's search: event-loop block under \`(.*)*X\`

${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores (load ${loadavg()[0]?.toFixed(1)}), ${RUNS} runs each, in ms. Lines of ${LINE.length} characters, none matching. Target: the longest block under ${TARGET_MS} ms, judged on the median of the runs (the max shows what the shared machine's load adds). The baseline is a substring search of the same files in the same process.

| files | longest block, regex (median) | longest block, regex (max) | longest block, substring (median) | search, regex | search, substring | regex / substring | target |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |
${rows.join("\n")}
`;
writeFileSync(fileURLToPath(new URL("../results/console-search.md", import.meta.url)), report);
process.stdout.write(report);
