/**
 * The cost of `secure_delete`, which `@mem/sqlite` keeps on for every write (so no earlier content
 * outlives its row and a purge leaves nothing of the tenant in the file): the same stores, the same
 * workload, in one process, with the pragma on (as shipped) and turned off on the connection afterwards.
 * Rounds alternate between the two so that both share the machine's load.
 *
 * Run: `npx -y pnpm@10 --filter @mem/bench bench:secure-delete [--quick]` (writes `results/secure-delete.md`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { executeCommand } from "@mem/core";
import { SqliteStore } from "@mem/sqlite";
import Database from "better-sqlite3";
import { TEXT } from "./scale.js";

const quick = process.argv.includes("--quick");
const rounds = quick ? 3 : 7;
const operations = quick ? 200 : 1000;
const files = 50;
const base = mkdtempSync(join(tmpdir(), "mem-bench-secure-delete-"));

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Ops/s of `operations` edits (str_replace back and forth, a delete and re-create every tenth) on `files` files. */
const run = async (secureDelete: boolean, round: number): Promise<number> => {
  const database = new Database(join(base, `${secureDelete ? "on" : "off"}-${round}.db`));
  const store = new SqliteStore({ database });
  try {
    await executeCommand(store, { command: "view", path: "/memories" });
    if (!secureDelete) database.pragma("secure_delete = OFF");
    if ((database.pragma("secure_delete", { simple: true }) === 1) !== secureDelete) {
      throw new Error("secure_delete is not as this run needs it");
    }
    for (let i = 0; i < files; i++) {
      await executeCommand(store, { command: "create", path: `/memories/f${i}.md`, file_text: TEXT });
    }
    const started = performance.now();
    for (let i = 0; i < operations; i++) {
      const path = `/memories/f${i % files}.md`;
      if (i % 10 === 9) {
        await executeCommand(store, { command: "delete", path });
        await executeCommand(store, { command: "create", path, file_text: TEXT });
        continue;
      }
      const [from, to] = Math.floor(i / files) % 2 === 0 ? ["line 7:", "LINE 7:"] : ["LINE 7:", "line 7:"];
      const result = await executeCommand(store, {
        command: "str_replace",
        path,
        old_str: from,
        new_str: to,
      });
      if (result.isError) throw new Error(result.content);
    }
    return operations / ((performance.now() - started) / 1000);
  } finally {
    await store.close();
    database.close();
  }
};

try {
  const on: number[] = [];
  const off: number[] = [];
  for (let round = 0; round < rounds; round++) {
    off.push(await run(false, round));
    on.push(await run(true, round));
  }
  const text = [
    `# secure_delete in @mem/sqlite${quick ? " (--quick)" : ""}`,
    "",
    `${new Date().toISOString()}, Node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(
        " ",
      )}. ${rounds} alternating rounds of ${operations} edits on ${files} files (WAL, synchronous = FULL, on disk).`,
    "",
    "| secure_delete | median ops/s | rounds (ops/s) |",
    "|---|---|---|",
    `| off | ${median(off).toFixed(1)} | ${off.map((n) => n.toFixed(0)).join(", ")} |`,
    `| on (shipped) | ${median(on).toFixed(1)} | ${on.map((n) => n.toFixed(0)).join(", ")} |`,
    "",
    `Cost: ops/s off ÷ ops/s on = ${(median(off) / median(on)).toFixed(2)}x.`,
    "",
  ].join("\n");
  const out = join(
    dirname(dirname(fileURLToPath(import.meta.url))),
    "results",
    quick ? "secure-delete-quick.md" : "secure-delete.md",
  );
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  console.log(text);
} finally {
  rmSync(base, { recursive: true, force: true });
}
