/**
 * `npx -y pnpm@10 --filter @mem/bench bench:profile-postgres [--ops=400] [--tenants=20] [--label=after]
 * [--statements] [--sql=...]`:
 * where each command's time goes on PostgreSQL, per command kind, for `executeCommand` over
 * `PostgresStore` against the raw `pg` baseline (raw-postgres.ts) doing the same commands, one agent, on a
 * server testkit starts with `pg_stat_statements` loaded.
 *
 * Per command: round trips (the statements the real `pg` clients of the pool sent, counted by wrapping
 * each connected client's `query`), bytes sent and received (the connection's socket counters), server
 * CPU (utime + stime of the pool's one backend, /proc), the statements the server ran (pg_stat_statements
 * with `track = all`: the top-level ones and those run inside functions) and their execution time, and
 * client CPU (`process.cpuUsage`). The engine's share of the client CPU is measured by the same commands
 * on `InMemoryStore` (core alone); the rest of ours is the adapter and the driver. Kinds run one after
 * another on each subject in turn, so both see the same machine load; the load average is reported.
 * Writes its section (`## {label}`) of results/profile-postgres.md, keeping the other sections.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { InMemoryStore } from "@mem/core";
import { PostgresStore } from "@mem/postgres";
import { startPostgres } from "@mem/testkit";
import pg from "pg";
import { flag } from "./flags.js";
import { type Expected, seedTenant } from "./load-sessions.js";
import { toolOver } from "./ours.js";
import { rawPgTableSql, rawPgTool } from "./raw-postgres.js";
import type { Tool, ToolInput } from "./subject.js";

const OPS = Number(flag("ops") ?? 400);
const TENANTS = Number(flag("tenants") ?? 20);
const LABEL = flag("label") ?? "after";
const WARM_UP = Number(flag("warm-up") ?? 300);

const here = dirname(fileURLToPath(import.meta.url));
const NOTES = ["/memories/notes/n0.md", "/memories/notes/n1.md", "/memories/projects/p0.md"];
const LOG = "/memories/shared/log.md";

/** Each command kind: the input of its `i`-th operation (tenant `i % TENANTS`). */
const KINDS: readonly { kind: string; input: (i: number) => ToolInput }[] = [
  { kind: "view dir", input: () => ({ command: "view", path: "/memories" }) },
  { kind: "view file", input: (i) => ({ command: "view", path: NOTES[i % NOTES.length] }) },
  {
    kind: "view_range",
    input: (i) => ({ command: "view", path: NOTES[i % NOTES.length], view_range: [5, 9] }),
  },
  {
    kind: "create",
    input: (i) => ({ command: "create", path: `/memories/scratch/c${i}.md`, file_text: `draft ${i}\n` }),
  },
  {
    kind: "insert",
    input: (i) => ({ command: "insert", path: LOG, insert_line: 1, insert_text: `entry-${i}` }),
  },
  {
    kind: "str_replace",
    input: (i) => ({ command: "str_replace", path: LOG, old_str: `entry-${i}\n`, new_str: `done-${i}\n` }),
  },
  {
    kind: "rename",
    input: (i) => ({
      command: "rename",
      old_path: `/memories/scratch/c${i}.md`,
      new_path: `/memories/scratch/r${i}.md`,
    }),
  },
  { kind: "delete", input: (i) => ({ command: "delete", path: `/memories/scratch/r${i}.md` }) },
];

/** A pool of one connection whose statements, bytes and backend are counted. */
class CountedPool {
  readonly pool: pg.Pool;
  roundTrips = 0;
  #socket: { bytesRead: number; bytesWritten: number } | undefined;
  #pid: number | undefined;

  constructor(url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0 });
    this.pool.on("error", () => {});
    this.pool.on("connect", (client) => {
      const inner = client as unknown as {
        processID?: number;
        connection?: { stream?: { bytesRead: number; bytesWritten: number } };
        query: (...args: unknown[]) => unknown;
      };
      this.#socket = inner.connection?.stream;
      this.#pid = inner.processID;
      const query = inner.query.bind(client);
      inner.query = (...args: unknown[]) => {
        this.roundTrips++;
        return query(...args);
      };
    });
  }

  /** Round trips, bytes each way and the backend's CPU seconds so far. */
  totals(): { trips: number; sent: number; received: number; cpu: number } {
    return {
      trips: this.roundTrips,
      sent: this.#socket?.bytesWritten ?? 0,
      received: this.#socket?.bytesRead ?? 0,
      cpu: this.#pid === undefined ? 0 : cpuOf(this.#pid),
    };
  }
}

const cpuOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

interface Subject {
  name: string;
  tools: Tool[];
  counted?: CountedPool;
}

interface Row {
  kind: string;
  subject: string;
  trips: number;
  sent: number;
  received: number;
  serverCpuUs: number;
  topStatements: number;
  nestedStatements: number;
  execUs: number;
  walBytes: number;
  clientCpuUs: number;
  p50Ms: number;
  errors: number;
}

const statements = async (
  admin: pg.Pool,
): Promise<{ top: number; nested: number; execMs: number; wal: number }> => {
  const { rows } = await admin.query(
    `SELECT coalesce(sum(calls) FILTER (WHERE toplevel), 0) AS top,
            coalesce(sum(calls) FILTER (WHERE NOT toplevel), 0) AS nested,
            coalesce(sum(total_exec_time + total_plan_time) FILTER (WHERE toplevel), 0) AS exec,
            coalesce(sum(wal_bytes) FILTER (WHERE toplevel), 0) AS wal
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND userid = (SELECT oid FROM pg_roles WHERE rolname = current_user)
         AND query NOT LIKE '%pg_stat_statements%'`,
  );
  const row = rows[0] as Record<string, string>;
  return {
    top: Number(row["top"]),
    nested: Number(row["nested"]),
    execMs: Number(row["exec"]),
    wal: Number(row["wal"]),
  };
};

/** With `--statements`: the statements that took the most execution time, for finding where it goes. */
const printStatements = async (admin: pg.Pool, subject: Subject, kind: string): Promise<void> => {
  const { rows } = await admin.query(
    `SELECT calls, round(total_exec_time::numeric * 1000 / $1) AS us, round(total_plan_time::numeric * 1000 / $1) AS plan, toplevel,
            left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS text
       FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'
      ORDER BY total_exec_time DESC LIMIT 8`,
    [OPS],
  );
  console.log(`${subject.name} ${kind}:`);
  for (const row of rows as Record<string, unknown>[]) {
    console.log(
      `  ${String(row["us"]).padStart(5)} µs/op plan ${String(row["plan"]).padStart(4)} ${String(row["calls"]).padStart(5)} calls ${row["toplevel"] ? "top" : "   "} ${String(row["text"])}`,
    );
  }
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? 0;
};

const measure = async (subject: Subject, kind: (typeof KINDS)[number], admin: pg.Pool): Promise<Row> => {
  if (subject.counted) await admin.query("SELECT pg_stat_statements_reset()");
  const before = subject.counted?.totals();
  const cpu = process.cpuUsage();
  const latencies: number[] = [];
  let errors = 0;
  for (let i = 0; i < OPS; i++) {
    const began = performance.now();
    const result = await subject.tools[i % TENANTS]!.exec(kind.input(i));
    latencies.push(performance.now() - began);
    if (result.isError) errors++;
  }
  const used = process.cpuUsage(cpu);
  const after = subject.counted?.totals();
  const stats = subject.counted ? await statements(admin) : { top: 0, nested: 0, execMs: 0, wal: 0 };
  if (subject.counted && process.argv.includes("--statements"))
    await printStatements(admin, subject, kind.kind);
  const per = (a: number | undefined, b: number | undefined) => ((a ?? 0) - (b ?? 0)) / OPS;
  return {
    kind: kind.kind,
    subject: subject.name,
    trips: per(after?.trips, before?.trips),
    sent: per(after?.sent, before?.sent),
    received: per(after?.received, before?.received),
    serverCpuUs: per(after?.cpu, before?.cpu) * 1e6,
    topStatements: stats.top / OPS,
    nestedStatements: stats.nested / OPS,
    execUs: (stats.execMs * 1000) / OPS,
    walBytes: stats.wal / OPS,
    clientCpuUs: (used.user + used.system) / OPS,
    p50Ms: median(latencies),
    errors,
  };
};

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "-");

const render = (rows: Row[], load: number[], startedAt: string): string => {
  const lines = [
    `## ${LABEL}`,
    "",
    `${startedAt}; ${OPS} commands per kind over ${TENANTS} tenants, one agent, one connection per subject; ` +
      `load average ${load.map((l) => l.toFixed(1)).join(" → ")} (shared 2-core machine).`,
    "",
    "| kind | subject | round trips | bytes sent | bytes received | server CPU µs | statements (top + in functions) | server exec + plan µs | WAL bytes | client CPU µs | of which core µs | p50 ms | errors |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const row of rows) {
    if (row.subject === "core") continue;
    const core = rows.find((r) => r.subject === "core" && r.kind === row.kind);
    const ours = row.subject === "postgres";
    lines.push(
      `| ${row.kind} | ${row.subject} | ${fixed(row.trips, 2)} | ${fixed(row.sent, 0)} | ${fixed(row.received, 0)} | ` +
        `${fixed(row.serverCpuUs, 0)} | ${fixed(row.topStatements, 2)} + ${fixed(row.nestedStatements, 2)} | ` +
        `${fixed(row.execUs, 0)} | ${fixed(row.walBytes, 0)} | ${fixed(row.clientCpuUs, 0)} | ${ours && core ? fixed(core.clientCpuUs, 0) : "-"} | ` +
        `${fixed(row.p50Ms, 2)} | ${row.errors} |`,
    );
  }
  const sum = (subject: string, pick: (row: Row) => number) =>
    rows.filter((r) => r.subject === subject).reduce((total, r) => total + pick(r), 0);
  lines.push(
    "",
    `All kinds, ours / raw: round trips ${fixed(sum("postgres", (r) => r.trips) / sum("raw-postgres", (r) => r.trips), 2)}x, ` +
      `bytes ${fixed(sum("postgres", (r) => r.sent + r.received) / sum("raw-postgres", (r) => r.sent + r.received), 2)}x, ` +
      `server CPU ${fixed(sum("postgres", (r) => r.serverCpuUs) / sum("raw-postgres", (r) => r.serverCpuUs), 2)}x, ` +
      `server exec time ${fixed(sum("postgres", (r) => r.execUs) / sum("raw-postgres", (r) => r.execUs), 2)}x, ` +
      `client CPU ${fixed(sum("postgres", (r) => r.clientCpuUs) / sum("raw-postgres", (r) => r.clientCpuUs), 2)}x ` +
      `(core alone: ${fixed(sum("core", (r) => r.clientCpuUs) / sum("raw-postgres", (r) => r.clientCpuUs), 2)}x).`,
    "",
  );
  return lines.join("\n");
};

/** Replaces this label's section of the results file, keeping the others (e.g. `before`). */
const save = (section: string): string => {
  const file = join(here, "..", "results", "profile-postgres.md");
  const header =
    "# PostgreSQL: where each command's time goes\n\n" +
    "`bench:profile-postgres` (src/profile-postgres.ts). Per command, averaged: round trips are statements the " +
    "pool's clients sent; bytes are the connection's socket counters; server CPU is the backend's utime + stime " +
    "(/proc, 10 ms ticks); statements are pg_stat_statements calls (`track = all`: top level + run inside the " +
    "store's functions), their planning and execution time and the WAL they wrote; client CPU is this process's, and \"of which core\" the same " +
    "commands on InMemoryStore (the engine alone). Compare rows of one section only: the machine is shared.\n";
  const old = existsSync(file) ? readFileSync(file, "utf8") : header;
  const sections = old.split(/^(?=## )/m);
  const kept = sections.filter((part, i) => i === 0 || !part.startsWith(`## ${LABEL}\n`));
  const text = `${[...kept.map((part) => part.trimEnd()), section.trimEnd()].join("\n\n")}\n`;
  writeFileSync(file, text);
  return file;
};

const main = async () => {
  const server = await startPostgres({
    settings: {
      shared_preload_libraries: "pg_stat_statements",
      "pg_stat_statements.track": "all",
      "pg_stat_statements.track_planning": "on",
    },
  });
  const closers: (() => Promise<unknown>)[] = [() => server.stop()];
  try {
    const admin = new pg.Pool({ connectionString: server.url, max: 1 });
    admin.on("error", () => {});
    closers.unshift(() => admin.end());
    await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    const ours = new CountedPool(server.url);
    const raw = new CountedPool(server.url);
    closers.unshift(
      () => ours.pool.end(),
      () => raw.pool.end(),
    );
    await raw.pool.query(rawPgTableSql);
    const store = new PostgresStore({ pool: ours.pool });
    const memory = new InMemoryStore();
    const tenants = Array.from({ length: TENANTS }, (_, t) => `t${t}`);
    const subjects: Subject[] = [
      { name: "postgres", tools: tenants.map((t) => toolOver(store.scope(t))), counted: ours },
      { name: "raw-postgres", tools: tenants.map((t) => rawPgTool(raw.pool, t)), counted: raw },
      { name: "core", tools: tenants.map((t) => toolOver(memory.scope(t))) },
    ];
    const expected: Expected = new Map();
    for (const subject of subjects) {
      for (const [t, tool] of subject.tools.entries()) await seedTenant(tool, t, expected);
      // Warm-up: every statement prepared on the connection, the functions' plans cached, this process's
      // code compiled by the JIT (a few hundred runs of each kind).
      for (const kind of KINDS) {
        for (let i = 0; i < WARM_UP; i++) await subject.tools[i % TENANTS]!.exec(kind.input(OPS + i));
      }
    }
    // As autovacuum does on a table in use: with statistics, PostgreSQL's plan cache may prefer a custom
    // plan per call (schema 6 planned every write again; see the "generic plans" section).
    await admin.query("ANALYZE");
    // `--sql=...`: a statement run after seeding, for measuring what a part of the schema costs (e.g.
    // `--sql='DROP INDEX mem_files_search'`); the section's label should then say so.
    const experiment = flag("sql");
    if (experiment !== undefined) {
      await admin.query(experiment);
      await ours.pool.query("DISCARD PLANS");
    }
    const load = [loadavg()[0]!];
    const startedAt = new Date().toISOString().slice(0, 16).replace("T", " ");
    const rows: Row[] = [];
    for (const kind of KINDS) {
      for (const subject of subjects) rows.push(await measure(subject, kind, admin));
      load.push(loadavg()[0]!);
    }
    rows.sort(
      (a, b) => KINDS.findIndex((k) => k.kind === a.kind) - KINDS.findIndex((k) => k.kind === b.kind),
    );
    const section = render(rows, load, startedAt);
    console.log(section);
    console.log(`written to ${save(section)}`);
  } finally {
    for (const close of closers) await close().catch(() => undefined);
  }
};

await main();
