/**
 * `@mem/cloudflare` inside workerd (Miniflare): the agent mix (view, create, str_replace, insert, view,
 * list, rename, delete) on `DurableObjectStore` (each command one RPC into the tenant's object) and
 * `D1Store`, with `InMemoryStore` in the same Worker as the baseline (the same request path, no storage).
 * Per command: p50/p99 of one request running one command; commands/s of one request running many;
 * storage requests per command, counted in the Worker (and for D1 the rows it read). Then the rows D1
 * reads for one view of `/memories` as a tenant's tree grows. Stores alternate round by round, so they share
 * the machine's load.
 *
 * Run: `npx -y pnpm@10 --filter @mem/bench bench:workers [--quick]` (writes `results/workers.md`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleWorker } from "@mem/testkit/workerd";
import { Miniflare } from "miniflare";
import { summarise } from "./stats.js";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 1 : 3;
const LATENCY_COMMANDS = quick ? 48 : 400; // per store and round, one request each
const BATCH_COMMANDS = quick ? 80 : 800; // per store and round, in one request
const STORES = [
  ["memory", "InMemoryStore (baseline)"],
  ["do", "DurableObjectStore"],
  ["d1", "D1Store"],
] as const;

const worker = new Miniflare({
  modules: [
    {
      type: "ESModule",
      path: "worker.mjs",
      contents: await bundleWorker(fileURLToPath(new URL("./workers/bench-worker.ts", import.meta.url))),
    },
  ],
  compatibilityDate: "2026-07-01",
  compatibilityFlags: ["nodejs_compat"],
  durableObjects: { MEMORY: { className: "MemoryObject", useSQLite: true } },
  d1Databases: ["DB"],
});

const next = new Map<string, number>(STORES.map(([store]) => [store, 0]));
/** Runs `count` commands of the mix on `store` in one request; the wall time seen from here. */
const run = async (
  store: string,
  count: number,
): Promise<{ ms: number; requests: number; errors: number; rows: number }> => {
  const start = next.get(store) ?? 0;
  next.set(store, start + count);
  const began = performance.now();
  const response = await worker.dispatchFetch(
    `http://bench/run?store=${store}&count=${count}&start=${start}`,
  );
  const body = (await response.json()) as { requests: number; errors: number; rows: number };
  return { ms: performance.now() - began, ...body };
};

try {
  await worker.ready;
  for (const [store] of STORES) await run(store, 16); // warm-up: the isolate, the object, the tables
  const latencies = new Map<string, number[]>(STORES.map(([store]) => [store, []]));
  const batches = new Map<string, { ms: number; commands: number }>(
    STORES.map(([s]) => [s, { ms: 0, commands: 0 }]),
  );
  const counts = new Map<string, { requests: number; commands: number; errors: number; rows: number }>(
    STORES.map(([s]) => [s, { requests: 0, commands: 0, errors: 0, rows: 0 }]),
  );
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [store] of STORES) {
      for (let i = 0; i < LATENCY_COMMANDS; i += 1) {
        const one = await run(store, 1);
        latencies.get(store)?.push(one.ms);
        const c = counts.get(store);
        if (c) {
          c.requests += one.requests;
          c.commands += 1;
          c.errors += one.errors;
          c.rows += one.rows;
        }
      }
      const many = await run(store, BATCH_COMMANDS);
      const b = batches.get(store);
      if (b) {
        b.ms += many.ms;
        b.commands += BATCH_COMMANDS;
      }
      const c = counts.get(store);
      if (c) {
        c.requests += many.requests;
        c.commands += BATCH_COMMANDS;
        c.errors += many.errors;
        c.rows += many.rows;
      }
    }
  }
  const treeRows: string[] = [];
  let grown = 0;
  for (const files of quick ? [200, 400] : [500, 2000, 4000]) {
    const response = await worker.dispatchFetch(`http://bench/tree?tenant=tree&files=${files}&from=${grown}`);
    const viewed = (await response.json()) as { rows: number; isError: boolean };
    if (viewed.isError) throw new Error("the view of the tree failed");
    grown = files;
    treeRows.push(`| ${files} | ${viewed.rows} |`);
  }
  const base = batches.get("memory") as { ms: number; commands: number };
  const baseRate = (base.commands * 1000) / base.ms;
  const rows = STORES.map(([store, label]) => {
    const lat = summarise(latencies.get(store) ?? [], 1);
    const b = batches.get(store) as { ms: number; commands: number };
    const c = counts.get(store) as { requests: number; commands: number; errors: number; rows: number };
    const rate = (b.commands * 1000) / b.ms;
    return `| ${label} | ${rate.toFixed(0)} | ${(baseRate / rate).toFixed(1)}x | ${lat.p50Ms.toFixed(2)} | ${lat.p99Ms.toFixed(2)} | ${(c.requests / c.commands).toFixed(3)} | ${store === "d1" ? (c.rows / c.commands).toFixed(1) : "-"} | ${c.errors} |`;
  });
  const report = [
    `# @mem/cloudflare in workerd${quick ? " (quick)" : ""}`,
    "",
    `Miniflare ${quick ? "quick run" : "full run"}, ${ROUNDS} round(s), stores alternating; ${cpus().length} cores (shared). The agent mix of 8 commands (view, create, str_replace, insert, view file, list, rename, delete) on one tenant.`,
    `commands/s: one request running ${BATCH_COMMANDS} commands in the Worker; p50/p99: ${LATENCY_COMMANDS} requests per round of one command each, measured from Node (the same request path for every row, so the baseline row is the path's own cost).`,
    "Storage requests per command: RPCs to the Durable Object, D1 round trips, counted inside the Worker (the mix has 2 edits in 8 commands, so D1's target is 10/8 = 1.25).",
    "",
    "| store | commands/s | slower than baseline | p50 ms | p99 ms | storage requests per command | D1 rows read per command | error results |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
    "",
    `A view of \`/memories\` on a D1 tenant as its tree grows (20 directories of 5 subdirectories; the view shows the 120 entries within two levels): rows D1 read for the view (\`meta.rows_read\`), counted.`,
    "",
    "| files in the tree | rows read by one view |",
    "|---:|---:|",
    ...treeRows,
    "",
  ].join("\n");
  console.log(report);
  const out = fileURLToPath(new URL(`../results/workers${quick ? "-quick" : ""}.md`, import.meta.url));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, report);
} finally {
  await worker.dispose();
}
