/**
 * `mem serve` on a 50,000-file fs store (50 folders of 1,000 files): first meaningful paint (the page
 * loaded until the tree's first item shows) and tree expansion (a click on a folder until its first
 * child shows), in Debian's chromium. Reported, not asserted: `pnpm --filter @mem/bench bench:console`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium } from "@mem/testkit/chromium";

const FOLDERS = 50;
const PER_FOLDER = 1000;
const RUNS = 5;
const MAIN = fileURLToPath(new URL("../../packages/cli/src/main.ts", import.meta.url));

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

const root = mkdtempSync(join(tmpdir(), "mem-bench-console-"));
for (let f = 0; f < FOLDERS; f++) {
  const dir = join(root, `folder-${String(f).padStart(2, "0")}`);
  mkdirSync(dir);
  for (let i = 0; i < PER_FOLDER; i++) writeFileSync(join(dir, `note-${i}.md`), `note ${f}/${i}\n`);
}

const server = spawn(
  process.execPath,
  ["--conditions=@mem/source", "--import", "tsx", MAIN, "serve", `fs:${root}`],
  {
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const address = await new Promise<string>((resolve, reject) => {
  let out = "";
  server.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    if (out.includes("\n")) resolve(out.split("\n")[0] as string);
  });
  server.on("close", (code) => reject(new Error(`mem serve exited ${code}`)));
});

const browser = await launchChromium();
const paints: number[] = [];
const expansions: number[] = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage();
    const started = performance.now();
    await page.goto(address);
    await page.getByRole("treeitem", { name: "folder-00", exact: true }).waitFor();
    paints.push(performance.now() - started);
    const folder = `folder-${String(run + 1).padStart(2, "0")}`;
    const opened = performance.now();
    await page.getByRole("treeitem", { name: folder, exact: true }).click();
    await page.getByRole("treeitem", { name: "note-0.md", exact: true }).waitFor();
    expansions.push(performance.now() - opened);
    await page.close();
  }
} finally {
  await browser.close();
  server.kill("SIGTERM");
  rmSync(root, { recursive: true, force: true });
}

const report = `# mem serve on ${FOLDERS * PER_FOLDER} files (fs store)

${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${RUNS} runs, in ms, ${cpus().length} cores (load average ${loadavg()[0]?.toFixed(1)} at the end). The first paint includes the root listing, whose folder sizes make FsStore read every file's size.

| measure | median | min | max |
| --- | ---: | ---: | ---: |
| first meaningful paint (load → first tree item) | ${median(paints).toFixed(0)} | ${Math.min(...paints).toFixed(0)} | ${Math.max(...paints).toFixed(0)} |
| tree expansion (click → first of 1,000 children) | ${median(expansions).toFixed(0)} | ${Math.min(...expansions).toFixed(0)} | ${Math.max(...expansions).toFixed(0)} |
`;
writeFileSync(fileURLToPath(new URL("../results/console.md", import.meta.url)), report);
process.stdout.write(report);
