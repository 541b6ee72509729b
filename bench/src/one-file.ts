/**
 * `pnpm --filter @mem/bench bench:one-file [--agents=16] [--inserts=25] [--rounds=3] [--quick]`: agents
 * inserting lines into one file at once, the busy shared file of a team memory. Every store runs twice
 * where it can: with a store, client or pool per agent (as separate processes would have) and with the
 * agents of one process sharing one store, client or pool, where edits of one file take turns (one read
 * and one write for the edits that arrived meanwhile). The anchor, the SDK's helper, takes no lock and
 * loses lines: it is the speed of not caring. Subjects alternate within each round; the table gives the
 * median of the rounds. Writes results/one-file.md (one-file-quick.md with `--quick`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { PostgresStore } from "@mem/postgres";
import { RedisStore } from "@mem/redis";
import { SqliteStore } from "@mem/sqlite";
import { startPostgres, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import pg from "pg";
import { anchorBackend } from "./anchor.js";
import { flag } from "./flags.js";
import { toolOver } from "./ours.js";
import { median } from "./paired.js";
import { summarise } from "./stats.js";
import type { Tool } from "./subject.js";

const quick = process.argv.includes("--quick");
const agents = Number(flag("agents") ?? 16);
const inserts = Number(flag("inserts") ?? (quick ? 5 : 25));
const rounds = Number(flag("rounds") ?? (quick ? 1 : 3));
const FILE = "/memories/shared.md";
const startLoad = loadavg()[0]!;

/** Tools over namespace `ns`, one per agent, and what closes them. */
interface Subject {
  readonly name: string;
  readonly how: string;
  readonly open: (ns: string) => Promise<{ tools: Tool[]; close: () => Promise<void> }>;
}

const tmp = mkdtempSync(join(tmpdir(), "mem-bench-one-file-"));
const redis = await startRedis();
const postgres = await startPostgres();

const closeAll = async (stores: MemoryStore[]) => {
  await Promise.allSettled(stores.map((store) => store.close?.()));
};
const each = <T>(make: (agent: number) => T): T[] => Array.from({ length: agents }, (_, a) => make(a));

const subjects: Subject[] = [
  {
    name: "anchor",
    how: "SDK helper, no lock",
    async open(ns) {
      const backend = await anchorBackend({ tmpDir: tmp });
      return { tools: await Promise.all(each(() => backend.open(ns))), close: () => backend.close() };
    },
  },
  {
    name: "fs",
    how: "a store per agent over one root",
    async open(ns) {
      const root = join(tmp, "fs", ns);
      const stores = each(() => new FsStore({ root }));
      return { tools: stores.map(toolOver), close: () => closeAll(stores) };
    },
  },
  {
    name: "sqlite",
    how: "one store, shared",
    async open(ns) {
      mkdirSync(join(tmp, "sqlite"), { recursive: true });
      const store = new SqliteStore({ path: join(tmp, "sqlite", `${ns}.db`) });
      return { tools: each(() => toolOver(store)), close: () => closeAll([store]) };
    },
  },
  {
    name: "redis",
    how: "a client per agent",
    async open(ns) {
      const clients = each(() => new Redis(redis.url));
      const stores = clients.map((client) => new RedisStore({ client, prefix: ns }));
      return {
        tools: stores.map(toolOver),
        close: async () => {
          for (const client of clients) client.disconnect();
        },
      };
    },
  },
  {
    name: "redis",
    how: "one client, a store per agent",
    async open(ns) {
      const client = new Redis(redis.url);
      return {
        tools: each(() => toolOver(new RedisStore({ client, prefix: ns }))),
        close: async () => client.disconnect(),
      };
    },
  },
  {
    name: "postgres",
    how: "a pool of 1 per agent",
    async open(ns) {
      const pools = each(() => new pg.Pool({ connectionString: postgres.url, max: 1 }));
      const stores = pools.map((pool) => new PostgresStore({ pool, tenant: ns }));
      return {
        tools: stores.map(toolOver),
        close: async () => {
          await Promise.all(pools.map((pool) => pool.end()));
        },
      };
    },
  },
  {
    name: "postgres",
    how: "one pool of 8, a store per agent",
    async open(ns) {
      const pool = new pg.Pool({ connectionString: postgres.url, max: 8 });
      return {
        tools: each(() => toolOver(new PostgresStore({ pool, tenant: ns }))),
        close: () => pool.end(),
      };
    },
  },
];

interface Run {
  opsPerSec: number;
  p99Ms: number;
  lost: number;
  errors: number;
}

const runOnce = async (subject: Subject, ns: string): Promise<Run> => {
  const { tools, close } = await subject.open(ns);
  try {
    const seeded = await tools[0]!.exec({ command: "create", path: FILE, file_text: "# shared\n" });
    if (seeded.isError) throw new Error(`${subject.name}: seeding: ${seeded.content}`);
    const latencies: number[] = [];
    let errors = 0;
    const line = (agent: number, k: number) => `agent ${agent} entry ${k}`;
    const started = performance.now();
    await Promise.all(
      tools.map(async (tool, agent) => {
        for (let k = 0; k < inserts; k++) {
          const began = performance.now();
          const result = await tool.exec({
            command: "insert",
            path: FILE,
            insert_line: 1,
            insert_text: line(agent, k),
          });
          latencies.push(performance.now() - began);
          if (result.isError) errors++;
        }
      }),
    );
    const wallMs = performance.now() - started;
    const text = (await tools[0]!.readText(FILE)) ?? "";
    const present = new Set(text.split("\n"));
    let lost = 0;
    for (let agent = 0; agent < agents; agent++)
      for (let k = 0; k < inserts; k++) if (!present.has(line(agent, k))) lost++;
    const { opsPerSec, p99Ms } = summarise(latencies, wallMs);
    return { opsPerSec, p99Ms, lost, errors };
  } finally {
    await close();
  }
};

const runs = new Map<Subject, Run[]>();
try {
  for (let round = 0; round < rounds; round++) {
    for (const [index, subject] of subjects.entries()) {
      const run = await runOnce(subject, `r${round}-s${index}`);
      runs.set(subject, [...(runs.get(subject) ?? []), run]);
      console.log(
        `${subject.name} (${subject.how}), round ${round + 1}: ${run.opsPerSec.toFixed(0)} inserts/s, p99 ${run.p99Ms.toFixed(1)} ms, ${run.lost} lost`,
      );
    }
  }
} finally {
  await postgres.stop();
  await redis.stop();
  rmSync(tmp, { recursive: true, force: true });
}

const anchorRate = median((runs.get(subjects[0] as Subject) ?? []).map((run) => run.opsPerSec));
const total = agents * inserts;
const lines = [
  `# ${agents} agents inserting into one file${quick ? " (quick)" : ""}`,
  "",
  `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, load average ${startLoad.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end. ${agents} agents, ${inserts} inserts each at line 1 of one file, all at once; median of ${rounds} round(s), the subjects alternating within each round. Lost: lines missing from the file at the end, over all rounds. Agents that share a store, client or pool (or, on fs, a root) take turns on the file: the edits that arrive while one is under way share its next read and write. Agents with a client or pool each, as separate processes, meet at the version check instead: a lost race reads again after a backoff (PostgreSQL then takes the tenant's lock).`,
  "",
  "| store | agents hold | inserts/s | vs anchor | p99 ms | lost | error results |",
  "|---|---|---:|---:|---:|---:|---:|",
  ...subjects.map((subject) => {
    const mine = runs.get(subject)!;
    const rate = median(mine.map((run) => run.opsPerSec));
    const lost = mine.reduce((sum, run) => sum + run.lost, 0);
    const errors = mine.reduce((sum, run) => sum + run.errors, 0);
    return `| ${subject.name} | ${subject.how} | ${Math.round(rate).toLocaleString("en-US")} | ${(rate / anchorRate).toFixed(2)}x | ${median(mine.map((run) => run.p99Ms)).toFixed(1)} | ${lost} / ${total * mine.length} | ${errors} |`;
  }),
];
writeFileSync(
  new URL(`../results/one-file${quick ? "-quick" : ""}.md`, import.meta.url),
  `${lines.join("\n")}\n`,
);
console.log(lines.join("\n"));
