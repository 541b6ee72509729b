/**
 * Two tables `pnpm bench` adds after the main run (also `pnpm --filter @mem/bench bench:scale [--quick]`):
 *
 * - The durable-write floor: what the file system itself charges for one durable replacement of a file
 *   (open a temporary file, write, fsync, close, rename over the target, fsync the directory), and
 *   `FsStore`'s create and str_replace as ratios of it, the three interleaved so that load hits all alike.
 * - Listing scale: `view /memories` over 1,000, 10,000 and 50,000 files, flat (everything within the two
 *   levels a view shows, 100 files per directory) and deep (10 × 10 directories, files a level below
 *   what is shown), for the anchor, fs, encrypted-fs, Redis and encrypted-Redis. Redis counts the
 *   commands its script runs (MONITOR, source "lua") and the bytes the store's connection reads.
 *
 * Writes results/scale.md (results/scale-quick.md with --quick) and returns the targets it measured.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { EncryptedStore } from "@mem/encrypted";
import { FsStore } from "@mem/fs";
import { RedisStore, recommendedRedisOptions } from "@mem/redis";
import { startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import type { Target } from "./report.js";

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
};
const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(v < 10 ? 2 : 1)} ms` : "–");
const times = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : "–");

const timed = async (action: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await action();
  return performance.now() - start;
};

// ---------------------------------------------------------------------------------------------------
// The durable-write floor

const LINES = Array.from({ length: 40 }, (_, i) => `line ${i}: something worth remembering about the user`);
export const TEXT = `${LINES.join("\n")}\n`;

export const floorWrite = (dir: string, name: string, data: string): void => {
  const temp = join(dir, `.tmp-${randomBytes(6).toString("hex")}`);
  const fd = openSync(temp, "w", 0o600);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(dir, name));
  const dirFd = openSync(dir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
};

interface FloorResult {
  floor: number[];
  create: number[];
  replace: number[];
}

const measureFloor = async (rounds: number): Promise<FloorResult> => {
  const base = mkdtempSync(join(tmpdir(), "mem-bench-floor-"));
  try {
    const rawDir = join(base, "raw");
    mkdirSync(rawDir);
    const store = new FsStore({ root: join(base, "fs") });
    await executeCommand(store, { command: "create", path: "/memories/edit.md", file_text: TEXT });
    const out: FloorResult = { floor: [], create: [], replace: [] };
    for (let i = 0; i < rounds; i++) {
      out.floor.push(await timed(async () => floorWrite(rawDir, `f${i}.md`, TEXT)));
      out.create.push(
        await timed(() =>
          executeCommand(store, { command: "create", path: `/memories/c${i}.md`, file_text: TEXT }),
        ),
      );
      const [from, to] = i % 2 === 0 ? ["line 7:", "LINE 7:"] : ["LINE 7:", "line 7:"];
      out.replace.push(
        await timed(() =>
          executeCommand(store, {
            command: "str_replace",
            path: "/memories/edit.md",
            old_str: from,
            new_str: to,
          }),
        ),
      );
    }
    return out;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
};

// ---------------------------------------------------------------------------------------------------
// Listing scale

export type Layout = "flat" | "deep";
export const pathOf = (layout: Layout, files: number, i: number): string =>
  layout === "flat"
    ? `/memories/d${String(i % Math.max(1, files / 100)).padStart(3, "0")}/f${i}.md`
    : `/memories/a${i % 10}/b${Math.floor(i / 10) % 10}/c${Math.floor(i / 100) % 5}/f${i}.md`;

export const contentOf = (path: string) => `${path}\n`;

const writeDisk = (root: string, relative: string, data: string | Uint8Array) => {
  const file = join(root, relative);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, data);
};

const inBatches = async <T>(items: T[], size: number, each: (item: T) => Promise<unknown>) => {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(each));
};

interface ScaleRow {
  files: number;
  layout: Layout;
  p50: Record<string, number>;
  redisCommands: Record<string, number>;
  redisBytes: Record<string, number>;
}

const VIEW = { command: "view", path: "/memories" } as const;
/** Bound on one Redis command or store operation here: generous, the machine may be busy. */
const PATIENT_MS = 120_000;

const measureScale = async (sizes: number[], log: (line: string) => void): Promise<ScaleRow[]> => {
  const redis = await startRedis();
  const monitorClient = new Redis(redis.port, redis.host);
  let luaCommands = 0;
  let marker = "";
  let markerSeen = false;
  const monitor = await monitorClient.monitor();
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (args[0]?.toLowerCase() === "echo" && args[1] === marker) markerSeen = true;
    else if (source === "lua") luaCommands += 1;
  });
  const base = mkdtempSync(join(tmpdir(), "mem-bench-scale-"));
  const key = randomBytes(32);
  const rows: ScaleRow[] = [];
  let prefixes = 0;
  try {
    for (const files of sizes) {
      for (const layout of ["flat", "deep"] as const) {
        log(`scale: ${files} files, ${layout}`);
        const paths = Array.from({ length: files }, (_, i) => pathOf(layout, files, i));
        const dir = join(base, `${files}-${layout}`);
        // The anchor and fs read the same tree from disk, written directly (a store's fsync per file would
        // only slow the set-up).
        for (const path of paths) {
          const relative = path.slice("/memories/".length);
          writeDisk(join(dir, "anchor", "memories"), relative, contentOf(path));
          writeDisk(join(dir, "fs"), relative, contentOf(path));
        }
        // encrypted-fs: sealed in memory, then its files (bookkeeping included) laid on disk.
        const sealed = new InMemoryStore();
        const sealing = new EncryptedStore(sealed, { key });
        await inBatches(paths, 500, (path) =>
          sealing.write(path, new TextEncoder().encode(contentOf(path)), { ifAbsent: true }),
        );
        for (const file of await sealed.files()) {
          writeDisk(
            join(dir, "encrypted-fs"),
            file.path.slice("/memories/".length),
            (await sealed.read(file.path))!.data,
          );
        }
        // Patient clients: CI runs this beside its tests at the lowest priority, where the server (started
        // by this process, so at the same priority) may wait seconds for a CPU while 1,000 writes queue.
        const patient = () =>
          new Redis(redis.url, {
            ...recommendedRedisOptions,
            commandTimeout: PATIENT_MS,
            connectTimeout: PATIENT_MS,
          });
        const redisClients = [patient(), patient()] as const;
        const redisStore = new RedisStore({
          client: redisClients[0],
          prefix: `scale-${++prefixes}`,
          operationTimeoutMs: PATIENT_MS,
        });
        const encryptedRedisInner = new RedisStore({
          client: redisClients[1],
          prefix: `scale-${++prefixes}`,
          operationTimeoutMs: PATIENT_MS,
        });
        const encryptedRedis = new EncryptedStore(encryptedRedisInner, { key });
        for (const store of [redisStore, encryptedRedis] as MemoryStore[]) {
          await inBatches(paths, 1_000, (path) =>
            store.write(path, new TextEncoder().encode(contentOf(path)), { ifAbsent: true }),
          );
        }

        const anchor = await BetaLocalFilesystemMemoryTool.init(join(dir, "anchor"));
        const subjects: Array<[string, () => Promise<unknown>, RedisStore?]> = [
          ["anchor", () => anchor.view(VIEW)],
          ["fs", () => executeCommand(new FsStore({ root: join(dir, "fs") }), VIEW)],
          [
            "encrypted-fs",
            () =>
              executeCommand(
                new EncryptedStore(new FsStore({ root: join(dir, "encrypted-fs") }), { key }),
                VIEW,
              ),
          ],
          ["redis", () => executeCommand(redisStore, VIEW), redisStore],
          ["encrypted-redis", () => executeCommand(encryptedRedis, VIEW), encryptedRedisInner],
        ];
        const row: ScaleRow = { files, layout, p50: {}, redisCommands: {}, redisBytes: {} };
        const rounds = files >= 50_000 ? 5 : files >= 10_000 ? 9 : 21;
        const samples = new Map<string, number[]>(subjects.map(([name]) => [name, []]));
        for (const [, view] of subjects) await view();
        // Interleaved rounds: load on the machine hits every subject alike.
        for (let round = 0; round < rounds; round++) {
          for (const [name, view] of subjects) samples.get(name)!.push(await timed(view));
        }
        for (const [name] of subjects) row.p50[name] = median(samples.get(name)!);
        for (const [name, view, counted] of subjects) {
          if (!counted) continue;
          const socket = (counted.client as Redis).stream;
          // MONITOR lines arrive late under load (the seeding's among them): count between two markers.
          const mark = async () => {
            marker = `marker-${Math.random()}`;
            markerSeen = false;
            await counted.client.echo(marker);
            while (!markerSeen) await new Promise((resolve) => setTimeout(resolve, 5));
          };
          await mark();
          const before = socket.bytesRead;
          luaCommands = 0;
          await view();
          const bytes = socket.bytesRead - before;
          await mark();
          row.redisCommands[name] = luaCommands;
          row.redisBytes[name] = bytes;
        }
        rows.push(row);
        await redisStore.close();
        await encryptedRedis.close();
        for (const client of redisClients) client.disconnect();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return rows;
  } finally {
    // monitor() opened a connection of its own, which would otherwise reconnect to the stopped server.
    monitor.disconnect();
    monitorClient.disconnect();
    await redis.stop();
    rmSync(base, { recursive: true, force: true });
  }
};

// ---------------------------------------------------------------------------------------------------

export interface ScaleReport {
  markdown: string;
  targets: Target[];
}

export const runScale = async (quick: boolean, log: (line: string) => void): Promise<ScaleReport> => {
  const floor = await measureFloor(quick ? 30 : 200);
  const rows = await measureScale(quick ? [1_000] : [1_000, 10_000, 50_000], log);
  const targets: Target[] = [];
  const target = (description: string, value: number, pass: boolean, measured: string, note?: string) =>
    targets.push({
      description,
      measured: Number.isFinite(value) ? measured : "–",
      status: Number.isFinite(value) ? (pass ? "met" : "missed") : "not measured",
      ...(note ? { note } : {}),
    });

  const floorP50 = median(floor.floor);
  const createRatio = median(floor.create) / floorP50;
  const replaceRatio = median(floor.replace) / floorP50;
  const lines = [
    "## The durable-write floor",
    "",
    `${floor.floor.length} rounds, interleaved: the file system's own cost of replacing a file durably (temporary file, write, fsync, close, rename, fsync of the directory), and FsStore's create and str_replace through \`executeCommand\` (40-line file).`,
    "",
    "| operation | p50 | p95 | p50 ÷ floor p50 |",
    "|---|---|---|---|",
    `| floor | ${ms(floorP50)} | ${ms(percentile(floor.floor, 0.95))} | 1.00x |`,
    `| fs create | ${ms(median(floor.create))} | ${ms(percentile(floor.create, 0.95))} | ${times(createRatio)} |`,
    `| fs str_replace | ${ms(median(floor.replace))} | ${ms(percentile(floor.replace, 0.95))} | ${times(replaceRatio)} |`,
    "",
    "## Listing scale: `view /memories`",
    "",
    "p50 of interleaved rounds. Flat: every file within the two levels a view shows (100 per directory). Deep: 10 × 10 directories shown, the files in 5 directories below each. Redis: commands its script ran inside the server (MONITOR) and bytes read by the store's connection, for one view. Syscalls of fs are not counted here (see the README).",
    "",
    "| files | layout | anchor | fs | fs vs anchor | encrypted-fs | redis | redis commands | redis KB | encrypted-redis | its commands | its KB |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const row of rows) {
    const kb = (name: string) => ((row.redisBytes[name] ?? Number.NaN) / 1000).toFixed(1);
    lines.push(
      `| ${row.files.toLocaleString("en-US")} | ${row.layout} | ${ms(row.p50["anchor"]!)} | ${ms(row.p50["fs"]!)} | ${times(row.p50["anchor"]! / row.p50["fs"]!)} | ${ms(row.p50["encrypted-fs"]!)} | ${ms(row.p50["redis"]!)} | ${row.redisCommands["redis"]} | ${kb("redis")} | ${ms(row.p50["encrypted-redis"]!)} | ${row.redisCommands["encrypted-redis"]} | ${kb("encrypted-redis")} |`,
    );
  }

  target(
    "fs create p50 ≤ 1.3x the durable-write floor",
    createRatio,
    createRatio <= 1.3,
    `${times(createRatio)} the floor`,
  );
  target(
    "fs str_replace p50 ≤ 1.3x the durable-write floor",
    replaceRatio,
    replaceRatio <= 1.3,
    `${times(replaceRatio)} the floor`,
  );
  for (const row of rows) {
    const speed = row.p50["anchor"]! / row.p50["fs"]!;
    target(
      `fs view /memories no slower than the anchor (${row.files.toLocaleString("en-US")} files, ${row.layout})`,
      speed,
      speed >= 1,
      `${times(speed)} the anchor's speed`,
      "exact recursive sizes need every file's size: fs reads them with one lstat per file",
    );
    if (row.files >= 50_000 && row.layout === "flat") {
      for (const name of ["redis", "encrypted-redis"]) {
        const commands = row.redisCommands[name] ?? Number.NaN;
        const bytes = row.redisBytes[name] ?? Number.NaN;
        target(
          `${name} view /memories over 50,000 files ≤ 1,100 commands and ≤ 150 KB`,
          commands,
          commands <= 1_100 && bytes <= 150_000,
          `${commands} commands, ${(bytes / 1000).toFixed(1)} KB`,
        );
      }
    }
  }
  return { markdown: `${lines.join("\n")}\n`, targets };
};

const isMain = process.argv[1]?.endsWith("scale.ts") === true;
if (isMain) {
  const quick = process.argv.includes("--quick");
  const { markdown, targets } = await runScale(quick, (line) => console.log(line));
  const file = join(
    dirname(new URL(import.meta.url).pathname),
    "..",
    "results",
    quick ? "scale-quick.md" : "scale.md",
  );
  const targetLines = targets.map((t) => `- [${t.status}] ${t.description}: ${t.measured}`);
  writeFileSync(file, `${markdown}\n## Targets\n\n${targetLines.join("\n")}\n`);
  console.log(markdown);
  console.log(targetLines.join("\n"));
  process.exit(0);
}
