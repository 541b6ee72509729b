/**
 * The cost of SPEC §7's policies, in one process: `scope()` over 10,000 tenants (time, memory and
 * connections or descriptors per tenant) and quota checks on the agent mix, as the ratio of ops/s with
 * quotas to ops/s without, run alternately in the same process. Usage:
 * `npx -y pnpm@10 --filter @mem/bench bench:policies [--quick] [--only=FsStore,RedisStore]`. With
 * `--only`, just those stores are measured and the table goes to `policies-only.md`.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { S3Client } from "@aws-sdk/client-s3";
import { type ExecuteOptions, executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { EncryptedStore } from "@mem/encrypted";
import { FsStore } from "@mem/fs";
import { RedisStore } from "@mem/redis";
import { S3Store } from "@mem/s3";
import { type RedisServer, type S3TestServer, startRedis, startS3 } from "@mem/testkit";
import { Redis } from "ioredis";
import { defaultConfig, quickConfig } from "./config.js";
import type { Backend } from "./subject.js";
import { agentMix } from "./workloads.js";

const quick = process.argv.includes("--quick");
const only = process.argv
  .find((arg) => arg.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
const config = quick ? quickConfig : defaultConfig;
const TENANTS = 10_000;
const ROUNDS = quick ? 1 : 3;
const BASE: ExecuteOptions = { maxFileBytes: 16 * 1024 * 1024 };
/** Limits high enough never to refuse: what is measured is the cost of checking them. */
const QUOTAS: ExecuteOptions = { ...BASE, maxFiles: 1_000_000_000, maxTotalBytes: 1_000_000_000_000 };

interface Subject {
  name: string;
  /** A fresh parent store over its own namespace. */
  make(ns: string): MemoryStore;
  /** Open connections (Redis: the server's client count) or descriptors (others) of this process. */
  connections(): Promise<number>;
  /** How many of the scopes write one file each (S3 and fs writes are slow). */
  writers: number;
}

const fds = async (): Promise<number> => readdirSync("/proc/self/fd").length;

const gcHeap = (): number => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
};

interface ScopeRow {
  name: string;
  usPerScope: number;
  bytesPerTenant: number;
  connectionsBefore: number;
  connectionsAfterScopes: number;
  connectionsAfterWrites: number;
  writers: number;
}

const scopeCost = async (subject: Subject): Promise<ScopeRow> => {
  const parent = subject.make(`scopes-${randomBytes(4).toString("hex")}`);
  if (!parent.scope) throw new Error(`${subject.name} has no scope()`);
  await executeCommand(parent, { command: "view", path: "/memories" });
  const connectionsBefore = await subject.connections();
  const heapBefore = gcHeap();
  const started = performance.now();
  const scopes: MemoryStore[] = [];
  for (let i = 0; i < TENANTS; i++) scopes.push(parent.scope(`tenant-${i}`));
  const elapsed = performance.now() - started;
  const bytesPerTenant = (gcHeap() - heapBefore) / TENANTS;
  const connectionsAfterScopes = await subject.connections();
  for (let i = 0; i < subject.writers; i += 50) {
    await Promise.all(
      scopes
        .slice(i, Math.min(i + 50, subject.writers))
        .map((s) => executeCommand(s, { command: "create", path: "/memories/a.md", file_text: "hello\n" })),
    );
  }
  const connectionsAfterWrites = await subject.connections();
  await Promise.allSettled(scopes.map((s) => s.close?.()));
  await parent.close?.();
  return {
    name: subject.name,
    usPerScope: (elapsed * 1000) / TENANTS,
    bytesPerTenant,
    connectionsBefore,
    connectionsAfterScopes,
    connectionsAfterWrites,
    writers: subject.writers,
  };
};

interface QuotaRow {
  name: string;
  without: number;
  withQuotas: number;
}

const backendOf = (subject: Subject, options: ExecuteOptions, run: string): Backend => {
  const stores: MemoryStore[] = [];
  return {
    async open(ns) {
      const store = subject.make(`${ns}-${run}`);
      stores.push(store);
      return {
        exec: (input) => executeCommand(store, input, options),
        async readText(path) {
          const file = await store.read(path);
          return file ? new TextDecoder().decode(file.data) : null;
        },
      };
    },
    async close() {
      await Promise.allSettled(stores.map((s) => s.close?.()));
    },
  };
};

const quotaCost = async (subject: Subject): Promise<QuotaRow> => {
  const rates = { without: [] as number[], withQuotas: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [key, options] of [
      ["without", BASE],
      ["withQuotas", QUOTAS],
    ] as const) {
      const backend = backendOf(subject, options, `${key}-${round}-${randomBytes(3).toString("hex")}`);
      const result = await agentMix(backend, config);
      await backend.close();
      if (result.errors > 0) throw new Error(`${subject.name} ${key}: ${result.firstError}`);
      rates[key].push(result.latency.opsPerSec);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { name: subject.name, without: median(rates.without), withQuotas: median(rates.withQuotas) };
};

const loadAtStart = loadavg();

const main = async () => {
  const tmp = mkdtempSync(join(tmpdir(), "mem-bench-policies-"));
  let redis: RedisServer | undefined;
  let s3: S3TestServer | undefined;
  const clients: { close(): void }[] = [];
  try {
    redis = await startRedis();
    s3 = await startS3();
    const redisClient = new Redis(redis.url);
    clients.push({ close: () => redisClient.disconnect() });
    const s3Client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
      forcePathStyle: true,
    });
    clients.push({ close: () => s3Client.destroy() });
    const key = new Uint8Array(randomBytes(32));
    const redisClients = async () =>
      String(await redisClient.call("CLIENT", "LIST"))
        .trim()
        .split("\n").length;
    const memory = new Map<string, InMemoryStore>();
    const s3Bucket = s3.bucket;
    const subjects: Subject[] = [
      {
        name: "InMemoryStore",
        make: (ns) => memory.get(ns) ?? memory.set(ns, new InMemoryStore()).get(ns)!,
        connections: fds,
        writers: TENANTS,
      },
      {
        name: "FsStore",
        make: (ns) => new FsStore({ root: join(tmp, ns) }),
        connections: fds,
        writers: quick ? 200 : 1_000,
      },
      {
        name: "RedisStore",
        make: (ns) => new RedisStore({ client: redisClient, prefix: `bench-${ns}` }),
        connections: redisClients,
        writers: TENANTS,
      },
      {
        name: "S3Store (s3rver)",
        make: (ns) => new S3Store({ client: s3Client, bucket: s3Bucket, prefix: `${ns}/` }),
        connections: fds,
        writers: quick ? 50 : 200,
      },
      {
        name: "EncryptedStore over FsStore",
        make: (ns) => new EncryptedStore(new FsStore({ root: join(tmp, `enc-${ns}`) }), { key }),
        connections: fds,
        writers: quick ? 200 : 1_000,
      },
    ];
    const scopeRows: ScopeRow[] = [];
    const quotaRows: QuotaRow[] = [];
    if (only) subjects.splice(0, subjects.length, ...subjects.filter((s) => only.includes(s.name)));
    for (const subject of subjects) {
      console.log(`scope(): ${subject.name}`);
      const row = await scopeCost(subject);
      console.log(`  ${JSON.stringify(row)}`);
      scopeRows.push(row);
    }
    for (const subject of subjects) {
      // On s3rver every create and growing edit lists the whole prefix: minutes per run; opt in with --s3.
      if (subject.name.startsWith("S3") && !process.argv.includes("--s3")) continue;
      console.log(`quotas: ${subject.name}`);
      const row = await quotaCost(subject);
      console.log(`  ${Math.round(row.without)} ops/s without, ${Math.round(row.withQuotas)} with`);
      quotaRows.push(row);
    }
    const load = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(" / ");
    const lines = [
      `# Policies: tenants and quotas${quick ? " (quick run)" : ""}`,
      "",
      `${cpus().length} cores; load average (1/5/15 min) at the start ${load(loadAtStart)}, at the end ${load(loadavg())}.`,
      "Other work on the machine moves every figure; compare ratios within one run only.",
      "",
      `${TENANTS.toLocaleString("en-US")} scopes of one parent store, then one create in each of the first *writers* scopes.`,
      "Heap per tenant is the heap growth after a forced GC with every scope object kept alive (run with",
      "`--expose-gc`). Connections are the Redis server's client count for Redis, this process's open",
      "descriptors otherwise.",
      "",
      "| store | µs per scope() | heap per tenant | connections before | after 10,000 scopes | after writes | writers |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...scopeRows.map(
        (r) =>
          `| ${r.name} | ${r.usPerScope.toFixed(1)} | ${Math.round(r.bytesPerTenant)} B | ${r.connectionsBefore} | ${r.connectionsAfterScopes} | ${r.connectionsAfterWrites} | ${r.writers.toLocaleString("en-US")} |`,
      ),
      "",
      `Agent mix (${config.mix.files} files) with \`maxFiles\` and \`maxTotalBytes\` set (never reached) against the same`,
      `run without, alternating, median of ${ROUNDS}. Target: ratio ≤ 1.10x.`,
      "",
      "| store | ops/s without quotas | ops/s with quotas | time ratio (without ÷ with) | target |",
      "|---|---:|---:|---:|---|",
      ...quotaRows.map((r) => {
        const ratio = r.without / r.withQuotas;
        return `| ${r.name} | ${Math.round(r.without)} | ${Math.round(r.withQuotas)} | ${ratio.toFixed(2)}x | ${ratio <= 1.1 ? "met" : "missed"} |`;
      }),
      "",
    ];
    const out = join(
      dirname(fileURLToPath(import.meta.url)),
      "..",
      "results",
      only ? "policies-only.md" : quick ? "policies-quick.md" : "policies.md",
    );
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, lines.join("\n"));
    console.log(lines.join("\n"));
  } finally {
    for (const client of clients) client.close();
    await redis?.stop();
    await s3?.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
};

await main();
