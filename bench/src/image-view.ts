/**
 * `pnpm --filter @mem/bench bench:image [--quick]`: the cost of viewing a 1 MiB PNG next to viewing a
 * 1 MiB text file, on FsStore and RedisStore. Each view is timed (median and p95 over the runs) and the
 * peak RSS of the process is sampled while it runs. Reported, never asserted; writes results/image-view.md
 * (or results/image-view-quick.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { RedisStore } from "@mem/redis";
import { startRedis } from "@mem/testkit";
import { RssSampler, seededRandom } from "./stats.js";

const quick = process.argv.includes("--quick");
const runs = quick ? 20 : 200;
const SIZE = 1024 * 1024;

/** A PNG signature and IHDR start, then pseudo-random bytes (base64 cannot compress them away). */
const pngBytes = (): Uint8Array => {
  const random = seededRandom(7);
  const data = new Uint8Array(SIZE);
  data.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  for (let i = 16; i < SIZE; i++) data[i] = Math.floor(random() * 256);
  return data;
};

/** Lines of 63 characters and a newline, to exactly 1 MiB. */
const textBytes = (): Uint8Array => {
  const line = `${"memory line ".repeat(6).slice(0, 63)}\n`;
  return new TextEncoder().encode(line.repeat(SIZE / line.length));
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

interface Row {
  store: string;
  view: string;
  p50: number;
  p95: number;
  startRssMiB: number;
  peakRssMiB: number;
  resultChars: number;
}

const measure = async (store: MemoryStore, name: string, view: string, path: string): Promise<Row> => {
  const times: number[] = [];
  let resultChars = 0;
  const startRssMiB = process.memoryUsage.rss() / (1024 * 1024);
  const rss = new RssSampler(2);
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = await executeCommand(store, { command: "view", path });
    times.push(performance.now() - started);
    if (result.isError) throw new Error(`${name} ${view}: ${result.content}`);
    resultChars = result.content.length + (result.image?.data.length ?? 0);
  }
  const peakRssMiB = rss.stop();
  times.sort((a, b) => a - b);
  return {
    store: name,
    view,
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    startRssMiB,
    peakRssMiB,
    resultChars,
  };
};

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), "mem-bench-image-"));
  const redis = await startRedis();
  const rows: Row[] = [];
  try {
    const stores: [string, MemoryStore][] = [
      ["FsStore", new FsStore({ root: join(dir, "fs") })],
      ["RedisStore", new RedisStore({ url: redis.url, prefix: "bench-image" })],
    ];
    const png = pngBytes();
    const text = textBytes();
    for (const [name, store] of stores) {
      await store.write("/memories/chart.png", png, { ifAbsent: true });
      await store.write("/memories/notes.md", text, { ifAbsent: true });
      // Text first, then the image, so a peak of the image view is not hidden by the text's.
      rows.push(await measure(store, name, "text, 1 MiB (16,000-character budget)", "/memories/notes.md"));
      rows.push(await measure(store, name, "image/png, 1 MiB (base64 result)", "/memories/chart.png"));
      await store.close?.();
    }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const table = [
    `# View of a 1 MiB PNG next to a 1 MiB text file (${runs} views each${quick ? ", quick" : ""})`,
    "",
    "| store | view | p50 ms | p95 ms | RSS before MiB | peak RSS MiB | result characters |",
    "|---|---|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.store} | ${r.view} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${r.startRssMiB.toFixed(0)} | ${r.peakRssMiB.toFixed(0)} | ${r.resultChars} |`,
    ),
    "",
    "RSS is the whole process's: before the row's first view, and its peak (sampled every 2 ms) while the",
    "row's views run. The process's peak only grows, so compare each row with the RSS it started from.",
    "",
  ].join("\n");
  const file = join(import.meta.dirname, "..", "results", quick ? "image-view-quick.md" : "image-view.md");
  writeFileSync(file, table);
  console.log(table);
};

await main();
