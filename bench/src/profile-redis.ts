/**
 * `pnpm bench:profile-redis [--ops=300] [--label=current]`: where each tool command's cost goes on Redis.
 * Per command kind (view of a directory, view of a file, view_range, create, str_replace, insert,
 * delete, rename), `executeCommand` over `RedisStore.scope(tenant)` against the raw ioredis baseline
 * (bench/src/raw-redis.ts, indexed as in the load benchmark) doing the same commands, one after the
 * other on one local redis-server:
 *
 * - round trips: commands our client wrote (a counting wrapper around the real client's `sendCommand`);
 * - server commands: `INFO commandstats` call deltas, the commands Lua scripts run included;
 * - server µs: the `usec` of the commands the client sent (a script's own commands are inside its time);
 * - bytes each way: `INFO stats` `total_net_input_bytes` / `total_net_output_bytes` deltas, less the
 *   bytes of the probe's own INFO calls (measured on an empty stretch);
 * - client CPU: this process's CPU per command; `executeCommand` over InMemoryStore doing the same
 *   commands is the core's share, the rest is the adapter and ioredis.
 *
 * The section for `--label` in bench/results/profile-redis.md is replaced; other sections stay, so the
 * file keeps a table from before a change next to one from after it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { RedisStore } from "@mem/redis";
import { startRedis } from "@mem/testkit";
import { type Command, Redis } from "ioredis";
import { anchorBackend } from "./anchor.js";
import { flag } from "./flags.js";
import { EXECUTE_OPTIONS } from "./ours.js";
import { rawRedisTool } from "./raw-redis.js";
import type { Tool, ToolInput } from "./subject.js";

const OPS = Number(flag("ops") ?? 300);
const LABEL = flag("label") ?? "current";
/** Paging as in `bench:paging`: windows of 100 lines over a file of `--paging-lines` lines. */
const PAGING_LINES = Number(flag("paging-lines") ?? 100_000);
const PAGING_ROUNDS = Number(flag("paging-rounds") ?? 5);
const PAGING_OPS = 50;

const KINDS = [
  "view dir",
  "view file",
  "view_range",
  "create",
  "str_replace",
  "insert",
  "rename",
  "delete",
] as const;
type Kind = (typeof KINDS)[number];

const NOTES = Array.from({ length: 6 }, (_, i) => `/memories/notes/n${i}.md`);
const noteText = (i: number): string =>
  `state: 0\n${Array.from({ length: 40 }, (_, line) => `fact ${line} about topic ${i}: ${"lorem ipsum ".repeat(3)}`).join("\n")}\n`;

/** The i-th command of a kind; stateful kinds keep what they need in `state`. */
const inputOf = (kind: Kind, i: number, state: number[]): ToolInput => {
  const note = NOTES[i % NOTES.length]!;
  switch (kind) {
    case "view dir":
      return { command: "view", path: "/memories" };
    case "view file":
      return { command: "view", path: note };
    case "view_range":
      return { command: "view", path: note, view_range: [10, 20] };
    case "create":
      return { command: "create", path: `/memories/scratch/c${i}.md`, file_text: `draft ${i}\n` };
    case "str_replace": {
      const n = state[i % NOTES.length] ?? 0;
      state[i % NOTES.length] = n + 1;
      return { command: "str_replace", path: note, old_str: `state: ${n}\n`, new_str: `state: ${n + 1}\n` };
    }
    case "insert":
      return { command: "insert", path: note, insert_line: 2, insert_text: `inserted ${i}` };
    case "rename":
      return {
        command: "rename",
        old_path: `/memories/scratch/c${i}.md`,
        new_path: `/memories/scratch/r${i}.md`,
      };
    case "delete":
      return { command: "delete", path: `/memories/scratch/r${i}.md` };
  }
};

interface Snapshot {
  calls: Map<string, number>;
  usec: Map<string, number>;
  input: number;
  output: number;
  cpuUs: number;
}

const snapshot = async (admin: Redis): Promise<Snapshot> => {
  const calls = new Map<string, number>();
  const usec = new Map<string, number>();
  for (const m of (await admin.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    calls.set(m[1]!, Number(m[2]));
    usec.set(m[1]!, Number(m[3]));
  }
  const stats = await admin.info("stats");
  const cpu = await admin.info("cpu");
  const num = (text: string, name: string) =>
    Number(new RegExp(`^${name}:([0-9.]+)`, "m").exec(text)?.[1] ?? 0);
  return {
    calls,
    usec,
    input: num(stats, "total_net_input_bytes"),
    output: num(stats, "total_net_output_bytes"),
    cpuUs: (num(cpu, "used_cpu_user") + num(cpu, "used_cpu_sys")) * 1e6,
  };
};

interface Row {
  subject: string;
  kind: Kind;
  roundTrips: number;
  serverCommands: number;
  scriptCommands: string;
  serverUs: number;
  serverCpuUs: number;
  bytesIn: number;
  bytesOut: number;
  clientCpuUs: number;
  coreCpuUs: number;
  errors: number;
}

/** A client whose written commands are counted by name. */
const countingClient = (url: string, sent: Map<string, number>): Redis => {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on("error", () => {});
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((command: Command, ...rest: unknown[]) => {
    if (command.name !== "info") sent.set(command.name, (sent.get(command.name) ?? 0) + 1);
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as Redis["sendCommand"];
  return client;
};

const seed = async (tool: Tool): Promise<void> => {
  const files = [
    ...NOTES.map((path, i) => [path, noteText(i)] as const),
    ["/memories/projects/p0.md", noteText(7)] as const,
    ["/memories/projects/p1.md", noteText(8)] as const,
    ["/memories/shared/log.md", "# log\n"] as const,
  ];
  for (const [path, text] of files) {
    const result = await tool.exec({ command: "create", path, file_text: text });
    if (result.isError) throw new Error(`seeding ${path}: ${result.content}`);
  }
  // So that rename and delete find the directory and the view of /memories shows it.
  await tool.exec({ command: "create", path: "/memories/scratch/keep.md", file_text: "keep\n" });
};

const cpuUs = (): number => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};

/** Runs OPS commands of each kind on `tool`; returns the client CPU per kind in µs per command. */
const clientCpuOf = async (tool: Tool): Promise<Map<Kind, number>> => {
  const out = new Map<Kind, number>();
  const state: number[] = [];
  for (const kind of KINDS) {
    const before = cpuUs();
    for (let i = 0; i < OPS; i++) await tool.exec(inputOf(kind, i, state));
    out.set(kind, (cpuUs() - before) / OPS);
  }
  return out;
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
};

/**
 * view_range windows of 100 lines over one long file, the SDK's helper and RedisStore alternated round by
 * round; the median ops/s of each and the median of the per-round ratios.
 */
const paging = async (url: string): Promise<string> => {
  const tmpDir = mkdtempSync(join(tmpdir(), "mem-profile-redis-"));
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    const path = "/memories/logs/long.log";
    const text = `${Array.from({ length: PAGING_LINES }, (_, i) => `log line ${i + 1}: the quick brown fox jumps over the lazy dog`).join("\n")}\n`;
    const store = new RedisStore({ client, prefix: "paging" });
    const tools: Record<"sdk" | "redis", Tool> = {
      sdk: await (await anchorBackend({ tmpDir })).open("paging"),
      redis: { exec: (input) => executeCommand(store, input, EXECUTE_OPTIONS), readText: async () => null },
    };
    const round = async (tool: Tool, first: number): Promise<number> => {
      const started = performance.now();
      let start = first;
      for (let i = 0; i < PAGING_OPS; i++) {
        const result = await tool.exec({ command: "view", path, view_range: [start, start + 99] });
        if (result.isError) throw new Error(`view_range failed: ${result.content.slice(0, 200)}`);
        start = start + 100 > PAGING_LINES ? 1 : start + 100;
      }
      return (PAGING_OPS * 1000) / (performance.now() - started);
    };
    for (const tool of Object.values(tools)) {
      const created = await tool.exec({ command: "create", path, file_text: text });
      if (created.isError) throw new Error(`seeding failed: ${created.content.slice(0, 200)}`);
      await round(tool, 1);
    }
    const sdk: number[] = [];
    const redis: number[] = [];
    const ratios: number[] = [];
    const load = [loadavg()[0]!];
    for (let r = 0; r < PAGING_ROUNDS; r++) {
      const first = 1 + ((r * PAGING_OPS * 100) % PAGING_LINES);
      sdk.push(await round(tools.sdk, first));
      redis.push(await round(tools.redis, first));
      ratios.push(redis.at(-1)! / sdk.at(-1)!);
      load.push(loadavg()[0]!);
    }
    return (
      `Paging (as \`bench:paging\`): view_range windows of 100 lines over a ${PAGING_LINES.toLocaleString("en-US")}-line file ` +
      `(${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB), ${PAGING_ROUNDS} rounds of ${PAGING_OPS}, alternated: SDK helper ` +
      `median ${median(sdk).toFixed(0)} ops/s, RedisStore ${median(redis).toFixed(0)} ops/s, median ratio ` +
      `${median(ratios).toFixed(2)}x (target ≥ 1x); load average ${median(load).toFixed(1)}.`
    );
  } finally {
    client.disconnect();
    rmSync(tmpDir, { recursive: true, force: true });
  }
};

const main = async () => {
  const server = await startRedis();
  const admin = new Redis(server.url, { maxRetriesPerRequest: 1 });
  const load = [loadavg()[0]!];
  const rows: Row[] = [];
  let pagingLine = "";
  try {
    // Core's share: the same commands through executeCommand over one InMemoryStore (warm-up first).
    const memory = new InMemoryStore();
    const memTool: Tool = {
      exec: (input) => executeCommand(memory, input, EXECUTE_OPTIONS),
      readText: async () => null,
    };
    await seed(memTool);
    await clientCpuOf(memTool);
    const memory2 = new InMemoryStore();
    const memTool2: Tool = {
      exec: (input) => executeCommand(memory2, input, EXECUTE_OPTIONS),
      readText: async () => null,
    };
    await seed(memTool2);
    const coreCpu = await clientCpuOf(memTool2);

    const subjects: Array<[string, (client: Redis, ns: string) => Tool]> = [
      [
        "RedisStore",
        (client, ns) => {
          const store: MemoryStore = new RedisStore({ client, prefix: "profile" }).scope(ns);
          return {
            exec: (input) => executeCommand(store, input, EXECUTE_OPTIONS),
            readText: async () => null,
          };
        },
      ],
      ["raw ioredis", (client, ns) => rawRedisTool(client, `raw:${ns}:`, true)],
    ];
    // The probe's own cost: an empty stretch between two snapshots.
    const a = await snapshot(admin);
    const b = await snapshot(admin);
    const probeIn = b.input - a.input;
    const probeOut = b.output - a.output;
    for (const [subject, make] of subjects) {
      for (const pass of ["warm-up", "measured"]) {
        const sent = new Map<string, number>();
        const client = countingClient(server.url, sent);
        await client.ping();
        const tool = make(client, `${subject === "RedisStore" ? "s" : "r"}-${pass}`);
        await seed(tool);
        const state: number[] = [];
        for (const kind of KINDS) {
          sent.clear();
          const before = await snapshot(admin);
          const cpuBefore = cpuUs();
          let errors = 0;
          for (let i = 0; i < OPS; i++) if ((await tool.exec(inputOf(kind, i, state))).isError) errors++;
          const clientCpu = (cpuUs() - cpuBefore) / OPS;
          const after = await snapshot(admin);
          let serverCommands = 0;
          const inside: Array<[string, number]> = [];
          for (const [name, calls] of after.calls) {
            if (name === "info") continue;
            const delta = calls - (before.calls.get(name) ?? 0);
            if (delta <= 0) continue;
            serverCommands += delta;
            const viaScript = delta - (sent.get(name) ?? 0);
            if (viaScript > 0) inside.push([name, viaScript]);
          }
          let serverUs = 0;
          for (const name of sent.keys())
            serverUs += (after.usec.get(name) ?? 0) - (before.usec.get(name) ?? 0);
          let roundTrips = 0;
          for (const n of sent.values()) roundTrips += n;
          inside.sort((x, y) => y[1] - x[1]);
          if (pass === "measured")
            rows.push({
              subject,
              kind,
              roundTrips: roundTrips / OPS,
              serverCommands: serverCommands / OPS,
              scriptCommands: inside.map(([name, n]) => `${name} ${(n / OPS).toFixed(1)}`).join(", "),
              serverUs: serverUs / OPS,
              serverCpuUs: (after.cpuUs - before.cpuUs) / OPS,
              bytesIn: Math.max(0, after.input - before.input - probeIn) / OPS,
              bytesOut: Math.max(0, after.output - before.output - probeOut) / OPS,
              clientCpuUs: clientCpu,
              coreCpuUs: coreCpu.get(kind) ?? Number.NaN,
              errors,
            });
        }
        client.disconnect();
        load.push(loadavg()[0]!);
      }
    }
    pagingLine = await paging(server.url);
  } finally {
    admin.disconnect();
    await server.stop();
  }
  const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
  const lines = [
    `## ${LABEL}`,
    "",
    `${new Date().toISOString()}, ${OPS} commands per kind, one agent, redis-server on loopback; ` +
      `load average ${load.map((l) => l.toFixed(1)).join(" → ")}.`,
    "",
    "| subject | command | round trips | server commands | commands run by scripts | server µs | server CPU µs | bytes in | bytes out | client CPU µs | of which core | errors |",
    "|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|",
    ...rows.map(
      (r) =>
        `| ${r.subject} | ${r.kind} | ${f(r.roundTrips, 2)} | ${f(r.serverCommands)} | ${r.scriptCommands || "–"} | ` +
        `${f(r.serverUs)} | ${f(r.serverCpuUs)} | ${f(r.bytesIn, 0)} | ${f(r.bytesOut, 0)} | ${f(r.clientCpuUs, 0)} | ` +
        `${r.subject === "RedisStore" ? f(r.coreCpuUs, 0) : "–"} | ${r.errors} |`,
    ),
    "",
    pagingLine,
    "",
  ];
  const section = lines.join("\n");
  console.log(section);
  const out = join(dirname(fileURLToPath(import.meta.url)), "..", "results", "profile-redis.md");
  const header =
    "# Redis: cost per tool command\n\n" +
    "Written by `pnpm bench:profile-redis` (bench/src/profile-redis.ts, which says how each column is measured). " +
    "Server µs is the commandstats time of the commands the client sent (a script's time includes the commands it runs); " +
    "server CPU µs is the redis-server process's CPU (INFO cpu), noisy on a loaded machine; client CPU is this " +
    'process\'s, and "of which core" is executeCommand over InMemoryStore doing the same commands. ' +
    "The raw baseline loses updates under concurrency and keeps no quotas, expiry, tenants or versions.\n\n";
  const previous = existsSync(out) ? readFileSync(out, "utf8") : header;
  const sections = previous.split(/^(?=## )/m);
  const kept = sections.filter((s, i) => i === 0 || !s.startsWith(`## ${LABEL}\n`));
  writeFileSync(out, [...kept, `${section}\n`].join(""));
};

await main();
