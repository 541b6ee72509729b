/**
 * The load benchmark's run: T tenants × A concurrent agents, each agent repeating realistic sessions
 * (view `/memories`, view two or three files, one or two edits, sometimes a create, a rename or a delete)
 * through `executeCommand` on `store.scope(tenant)`, against Postgres, Redis, Redis Cluster, SQLite and
 * fs, and the same sessions through the raw drivers. Servers are started by @mem/testkit on loopback.
 * `bench:load` (load.ts) runs it on its own; `pnpm bench` (main.ts) runs its quick form.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { PostgresStore } from "@mem/postgres";
import { RedisStore } from "@mem/redis";
import { SqliteStore } from "@mem/sqlite";
import { startPostgres, startRedis, startRedisCluster } from "@mem/testkit";
import { Cluster, Redis } from "ioredis";
import pg from "pg";
import { type LoadRow, renderLoad, type SeededRow } from "./load-report.js";
import { cpuOfRedis, diskBytes, postgresCpu, trackPgSockets, wireOfRedis } from "./load-server.js";
import { type Expected, runLevel, seedTenant } from "./load-sessions.js";
import { toolOver } from "./ours.js";
import { rawFsBackend } from "./raw-fs.js";
import { RAW_PG_TABLE, rawPgTableSql, rawPgTool } from "./raw-postgres.js";
import { rawRedisTool } from "./raw-redis.js";
import { rawSqlite } from "./raw-sqlite.js";
import type { Target } from "./report.js";
import type { Tool } from "./subject.js";

/** The agent counts the speed targets are stated at, in full and quick runs alike. */
export const DEFAULT_LEVELS = [8, 32, 64];

export interface LoadOptions {
  tenants: number;
  /** Concurrent agents of each level, in order. */
  levels: number[];
  /** Length of each level. */
  seconds: number;
  /** Share of the sessions that go to one hot tenant, whose agents meet on one file. */
  hot: number;
  /** Subjects to run (`postgres`, `raw-postgres`, ...); all without it. */
  only?: string[] | undefined;
  quick: boolean;
  /** The chart's file name, linked from the Markdown. */
  svgFile: string;
  log(line: string): void;
}

export interface LoadReport {
  markdown: string;
  svg: string;
  targets: Target[];
}

/** What one subject measures on its server, as monotonic totals read before and after each level. */
interface ServerProbe {
  /** CPU seconds the server processes used so far (this process's when the store runs in it). */
  cpuSeconds(): Promise<number | null>;
  /** Bytes sent both ways between this process and the server so far; `null` without a network. */
  wireBytes(): Promise<number | null>;
  /** Bytes the server holds for all tenants (memory or disk); `null` when unknown. */
  heldBytes(): Promise<number | null>;
  /** What `heldBytes` measures. */
  held: string;
  /** Keys (Redis, every node) or rows (Postgres) held for all tenants; `null` when not counted. */
  heldItems(): Promise<number | null>;
  /** Parts of `heldBytes` (Postgres: heap, indexes, TOAST), in bytes; `undefined` when not split. */
  heldParts?(): Promise<Record<string, number>>;
}

interface Subject {
  name: string;
  raw: boolean;
  tool(tenant: string): Tool;
  probe: ServerProbe;
  close(): Promise<void>;
}

type Factory = () => Promise<Subject>;

export const runLoad = async (options: LoadOptions): Promise<LoadReport> => {
  const { tenants: TENANTS, levels: LEVELS, seconds: SECONDS, hot: HOT, only: ONLY, log } = options;
  const tmp = mkdtempSync(join(tmpdir(), "mem-bench-load-"));
  const wanted = (name: string) => !ONLY || ONLY.includes(name);
  const needs = (prefix: string) =>
    [prefix, `raw-${prefix}`].some((name) => wanted(name)) ||
    (prefix === "redis" && ["redis-cluster", "raw-redis-cluster"].some(wanted));
  const postgres = needs("postgres") ? await startPostgres() : undefined;
  const redis = needs("redis") && (wanted("redis") || wanted("raw-redis")) ? await startRedis() : undefined;
  const cluster =
    wanted("redis-cluster") || wanted("raw-redis-cluster")
      ? await startRedisCluster({ masters: 3 })
      : undefined;
  const loadAtStart = uptimeText();
  const rows: LoadRow[] = [];
  const seeded: SeededRow[] = [];
  const closers: (() => Promise<void>)[] = [];
  try {
    const wires = new WeakMap<pg.Pool, () => number>();
    const pgPool = (max: number) => {
      const pool = new pg.Pool({ connectionString: postgres!.url, max, idleTimeoutMillis: 0 });
      pool.on("error", () => {});
      wires.set(pool, trackPgSockets(pool));
      closers.push(() => pool.end());
      return pool;
    };
    const pgProbe = (pool: pg.Pool, table: string): ServerProbe => {
      const wire = wires.get(pool)!;
      const cpu = postgresCpu(pool);
      return {
        cpuSeconds: cpu,
        wireBytes: async () => wire(),
        heldBytes: async () =>
          Number((await pool.query("SELECT pg_total_relation_size($1) AS n", [table])).rows[0]?.n ?? 0),
        held: "table, indexes and TOAST (pg_total_relation_size)",
        heldItems: async () =>
          Number((await pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n ?? 0),
        heldParts: async () => {
          const { rows } = await pool.query(
            `SELECT pg_relation_size($1) AS heap, pg_indexes_size($1) AS indexes,
               pg_total_relation_size($1) - pg_relation_size($1) - pg_indexes_size($1) AS toast`,
            [table],
          );
          const row = rows[0] as Record<string, string>;
          return { heap: Number(row["heap"]), indexes: Number(row["indexes"]), toast: Number(row["toast"]) };
        },
      };
    };
    const redisProbe = (nodes: () => Redis[]): ServerProbe => ({
      cpuSeconds: () => cpuOfRedis(nodes()),
      wireBytes: () => wireOfRedis(nodes()),
      heldBytes: async () => {
        let total = 0;
        for (const node of nodes())
          total += Number(/used_memory:(\d+)/.exec(await node.info("memory"))?.[1] ?? 0);
        return total;
      },
      held: "used_memory of every node",
      heldItems: async () => {
        let total = 0;
        for (const node of nodes()) total += await node.dbsize();
        return total;
      },
    });
    // In-process stores have no server: their CPU is this process's (store, driver and the harness alike,
    // so a store and its raw baseline compare on equal terms).
    const noServer = (root: string, held: string): ServerProbe => ({
      cpuSeconds: async () => {
        const used = process.cpuUsage();
        return (used.user + used.system) / 1e6;
      },
      wireBytes: async () => null,
      heldBytes: async () => diskBytes(root),
      held,
      heldItems: async () => null,
    });
    const redisNodes = (client: Redis | Cluster): (() => Redis[]) =>
      client instanceof Cluster ? () => client.nodes("master") : () => [client];
    const clusterClient = () => {
      const client = new Cluster([...cluster!.startupNodes], { redisOptions: { maxRetriesPerRequest: 2 } });
      closers.push(async () => void client.disconnect());
      return client;
    };
    const redisClient = () => {
      const client = new Redis(redis!.url, { maxRetriesPerRequest: 2 });
      closers.push(async () => void client.disconnect());
      return client;
    };
    /** One of our stores, each tenant through `store.scope(tenant)` and `executeCommand`. */
    const ours = (
      name: string,
      store: { scope(tenant: string): MemoryStore },
      probe: ServerProbe,
      close: () => Promise<void> = async () => {},
    ): Subject => ({ name, raw: false, tool: (tenant) => toolOver(store.scope(tenant)), probe, close });
    /** A RedisStore and the raw ioredis baseline over clients `connect` makes. */
    const redisPair = (
      name: string,
      connect: () => Redis | Cluster,
      rawPrefix: (tenant: string) => string,
    ): Record<string, Factory> => ({
      [name]: async () => {
        const client = connect();
        const store = new RedisStore({ client, prefix: "load" });
        await store.check();
        return ours(name, store, redisProbe(redisNodes(client)));
      },
      [`raw-${name}`]: async () => {
        const client = connect();
        await client.ping();
        return {
          name: `raw-${name}`,
          raw: true,
          tool: (tenant) => rawRedisTool(client, rawPrefix(tenant), true),
          probe: redisProbe(redisNodes(client)),
          close: async () => {},
        };
      },
    });
    const maxAgents = Math.max(...LEVELS);
    const factories: Record<string, Factory> = {
      postgres: async () => {
        const pool = pgPool(maxAgents);
        const store = new PostgresStore({ pool, table: "load_files" });
        await store.check();
        return ours("postgres", store, pgProbe(pool, "load_files"));
      },
      "raw-postgres": async () => {
        const pool = pgPool(maxAgents);
        await pool.query(rawPgTableSql);
        return {
          name: "raw-postgres",
          raw: true,
          tool: (tenant) => rawPgTool(pool, tenant),
          probe: pgProbe(pool, RAW_PG_TABLE),
          close: async () => {},
        };
      },
      ...redisPair("redis", redisClient, (tenant) => `raw:${tenant}:`),
      // The hash tag keeps a tenant's keys and its index on one slot.
      ...redisPair("redis-cluster", clusterClient, (tenant) => `{raw:${tenant}}:`),
      sqlite: async () => {
        const dir = join(tmp, "sqlite");
        mkdirSync(dir, { recursive: true });
        const store = new SqliteStore({ path: join(dir, "load.db") });
        return ours("sqlite", store, noServer(dir, "database file and WAL on disk"), () => store.close());
      },
      "raw-sqlite": async () => {
        const dir = join(tmp, "raw-sqlite");
        mkdirSync(dir, { recursive: true });
        const db = rawSqlite(join(dir, "load.db"));
        return {
          name: "raw-sqlite",
          raw: true,
          tool: (tenant) => db.tool(tenant),
          probe: noServer(dir, "database file and WAL on disk"),
          close: async () => db.close(),
        };
      },
      fs: async () => {
        const root = join(tmp, "fs");
        const store = new FsStore({ root });
        return ours("fs", store, noServer(root, "allocated disk blocks of the files and directories"));
      },
      "raw-fs": async () => {
        const backend = await rawFsBackend({ tmpDir: tmp });
        const tools = new Map<string, Tool>();
        // node:fs calls, one directory per tenant; opened once per tenant like the stores' scopes.
        for (let t = 0; t < TENANTS; t++) tools.set(tenantId(t), await backend.open(tenantId(t)));
        return {
          name: "raw-fs",
          raw: true,
          tool: (tenant) => tools.get(tenant)!,
          probe: noServer(join(tmp, "raw-fs"), "allocated disk blocks of the files and directories"),
          close: () => backend.close(),
        };
      },
    };
    // Every subject is seeded first, then each load level runs on every subject in turn: a store and its
    // raw driver run seconds apart, not minutes, so other work on the machine skews their ratio less.
    const prepared: { subject: Subject; tools: Tool[]; expected: Expected }[] = [];
    try {
      for (const [name, factory] of Object.entries(factories)) {
        if (!wanted(name)) continue;
        const subject = await factory();
        prepared.push({ subject, tools: [], expected: new Map() });
        const heldBefore = (await subject.probe.heldBytes()) ?? 0;
        const itemsBefore = (await subject.probe.heldItems()) ?? 0;
        const tools = Array.from({ length: TENANTS }, (_, t) => subject.tool(tenantId(t)));
        prepared.at(-1)!.tools = tools;
        const { expected } = prepared.at(-1)!;
        const seedStart = performance.now();
        let seededText = 0;
        await forEachLimited(tools, 16, async (tool, t) => {
          const written = await seedTenant(tool, t, expected);
          seededText += written;
        });
        const heldSeeded = await subject.probe.heldBytes();
        const itemsSeeded = await subject.probe.heldItems();
        const parts = await subject.probe.heldParts?.();
        const row: SeededRow = {
          subject: subject.name,
          textBytesPerTenant: seededText / TENANTS,
          heldBytesPerTenant: heldSeeded === null ? null : (heldSeeded - heldBefore) / TENANTS,
          heldItemsPerTenant: itemsSeeded === null ? null : (itemsSeeded - itemsBefore) / TENANTS,
          held: subject.probe.held,
          ...(parts && {
            parts: Object.fromEntries(Object.entries(parts).map(([part, bytes]) => [part, bytes / TENANTS])),
          }),
        };
        seeded.push(row);
        log(
          `${name}: ${TENANTS} tenants seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s, ${whole(row.heldBytesPerTenant)} B held per tenant`,
        );
      }
      for (const agents of LEVELS) {
        for (const { subject, tools, expected } of prepared) {
          const cpu0 = await subject.probe.cpuSeconds();
          const wire0 = await subject.probe.wireBytes();
          const result = await runLevel(tools, agents, SECONDS * 1000, expected, HOT);
          const cpu1 = await subject.probe.cpuSeconds();
          const wire1 = await subject.probe.wireBytes();
          const row: LoadRow = {
            subject: subject.name,
            raw: subject.raw,
            tenants: TENANTS,
            agents,
            ...result,
            cpuSecondsPer1000:
              cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / Math.max(1, result.commands),
            wireBytesPerCommand:
              wire0 === null || wire1 === null ? null : (wire1 - wire0) / Math.max(1, result.commands),
            lostUpdates: null,
          };
          rows.push(row);
          log(
            `${subject.name} at ${agents} agents: ${Math.round(row.opsPerSec)} ops/s, p50 ${row.p50Ms.toFixed(1)} ms, p99 ${row.p99Ms.toFixed(1)} ms, p999 ${row.p999Ms.toFixed(1)} ms, ${row.errors} errors`,
          );
        }
      }
      for (const { subject, tools, expected } of prepared) {
        const lost = await countLost(tools, expected);
        for (const row of rows) if (row.subject === subject.name) row.lostUpdates = lost.lost;
        log(`${subject.name}: lost updates: ${lost.lost} of ${lost.checked}`);
      }
    } finally {
      for (const { subject } of prepared) await subject.close();
    }
    const order = prepared.map(({ subject }) => subject.name);
    rows.sort((a, b) => order.indexOf(a.subject) - order.indexOf(b.subject) || a.agents - b.agents);
    return renderLoad(rows, seeded, {
      tenants: TENANTS,
      seconds: SECONDS,
      hot: HOT,
      cores: cpus().length,
      loadAtStart,
      loadAtEnd: uptimeText(),
      svgFile: options.svgFile,
      quick: options.quick,
    });
  } finally {
    for (const close of closers) await close().catch(() => undefined);
    await postgres?.stop();
    await redis?.stop();
    await cluster?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
};

const tenantId = (t: number): string => `t${String(t).padStart(5, "0")}`;

const whole = (value: number | null): string =>
  value === null ? "—" : Math.round(value).toLocaleString("en-US");

const uptimeText = (): string => {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" / ");
  } catch {
    return loadavg()
      .map((x) => x.toFixed(2))
      .join(" / ");
  }
};

const forEachLimited = async <T>(
  items: readonly T[],
  limit: number,
  body: (item: T, index: number) => Promise<void>,
): Promise<void> => {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await body(items[index]!, index);
      }
    }),
  );
};

/** Reads every file agents added lines to and counts the lines that are not there. */
const countLost = async (
  tools: readonly Tool[],
  expected: Expected,
): Promise<{ lost: number; checked: number }> => {
  let lost = 0;
  let checked = 0;
  for (const [key, lines] of expected) {
    const [t, path] = [Number(key.slice(0, key.indexOf(":"))), key.slice(key.indexOf(":") + 1)];
    const text = (await tools[t]!.readText(path)) ?? "";
    const present = new Set(text.split("\n"));
    for (const line of lines) {
      checked++;
      if (!present.has(line)) lost++;
    }
  }
  return { lost, checked };
};

/**
 * The load `pnpm bench` runs after its other workloads (CI runs it with `--quick`): every subject at the
 * default levels, tenants drawn uniformly as the targets are measured, shorter than `bench:load`. A
 * server that cannot start leaves its targets "not measured".
 */
export const benchLoad = async (
  quick: boolean,
  svgFile: string,
  log: (line: string) => void,
): Promise<LoadReport> => {
  const tenants = quick ? 20 : 200;
  const seconds = quick ? 1 : 5;
  try {
    return await runLoad({ tenants, levels: DEFAULT_LEVELS, seconds, hot: 0, quick, svgFile, log });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    log(`load: not run: ${reason}`);
    return {
      markdown: `## Load\n\nNot run: ${reason}\n`,
      svg: "",
      targets: [
        {
          description: "load: stores against their raw drivers",
          measured: "–",
          status: "not measured",
          note: reason,
        },
      ],
    };
  }
};
