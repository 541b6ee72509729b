/**
 * The child process that benchmarks one implementation, so that its peak RSS is its own. It receives
 * `{ type: "start", name, env, config }` over IPC, runs every workload, and answers with
 * `{ type: "result", result }`. It asks the parent for S3 request counts (the proxy lives there).
 */
import { S3Client } from "@aws-sdk/client-s3";
import type { BenchConfig } from "./config.js";
import { createBackend, type Hooks, IMPLEMENTATIONS } from "./implementations.js";
import { PgCounters } from "./pg-counters.js";
import { RedisCounters } from "./redis-counters.js";
import { countTornReads } from "./s3-torn.js";
import { mib } from "./stats.js";
import { type Backend, type ChildEnv, messageOf, Unavailable } from "./subject.js";
import {
  agentMix,
  concurrentAgents,
  listing,
  type PhaseResult,
  paging,
  requestAccounting,
} from "./workloads.js";

export interface WorkerResult {
  name: string;
  status: "ok" | "not available" | "failed";
  reason?: string;
  baselineRssMiB: number;
  maxRssMiB: number;
  phases: Record<string, PhaseResult | { failed: string }>;
  /** Command kind → counter name → requests per command. */
  requestsByCommand?: Record<string, Record<string, number>>;
}

export type ParentMessage =
  | { type: "start"; name: string; env: ChildEnv; config: BenchConfig }
  | { type: "s3-requests"; id: number; total: number };

export type ChildMessage =
  | { type: "progress"; text: string }
  | { type: "s3-requests"; id: number }
  | { type: "result"; result: WorkerResult };

const send = (message: ChildMessage) => process.send?.(message);

const pendingCounts = new Map<number, (total: number) => void>();
let nextId = 0;

const askS3Requests = (): Promise<number> =>
  new Promise((resolve) => {
    const id = nextId++;
    pendingCounts.set(id, resolve);
    send({ type: "s3-requests", id });
  });

const runPhase = async (
  phases: WorkerResult["phases"],
  name: string,
  run: () => Promise<PhaseResult>,
): Promise<void> => {
  send({ type: "progress", text: name });
  try {
    phases[name] = await run();
  } catch (error) {
    phases[name] = { failed: messageOf(error).slice(0, 300) };
  }
};

const benchmark = async (name: string, env: ChildEnv, config: BenchConfig): Promise<WorkerResult> => {
  const info = IMPLEMENTATIONS.find((impl) => impl.name === name);
  const baselineRssMiB = mib(process.memoryUsage.rss());
  const result: WorkerResult = { name, status: "ok", baselineRssMiB, maxRssMiB: 0, phases: {} };
  const redis = env.redisUrl ? new RedisCounters(env.redisUrl) : undefined;
  const tornCounters: { torn: () => number }[] = [];
  const tornReads = () => tornCounters.reduce((sum, counter) => sum + counter.torn(), 0);
  const hooks: Hooks = {
    redis,
    postgres: env.postgresUrl ? new PgCounters(env.postgresUrl) : undefined,
    s3RequestCounters: async () => ({ "HTTP requests": await askS3Requests(), "torn reads": tornReads() }),
    async s3Client() {
      if (!env.s3) throw new Unavailable("no S3 server");
      const client = new S3Client({
        endpoint: env.s3.endpoint,
        region: env.s3.region,
        credentials: env.s3.credentials,
        forcePathStyle: true,
      });
      const counter = countTornReads(client);
      tornCounters.push(counter);
      return { client, destroy: () => client.destroy() };
    },
  };
  let backend: Backend | undefined;
  try {
    if (info?.family === "redis") await redis?.flush();
    backend = await createBackend(name, env, hooks);
    // A smoke test: an implementation that cannot create, view and delete one file is not usable yet.
    const smoke = await backend.open("smoke");
    for (const input of [
      { command: "create", path: "/memories/smoke.md", file_text: "hello\n" },
      { command: "view", path: "/memories/smoke.md" },
      { command: "delete", path: "/memories/smoke.md" },
    ]) {
      const outcome = await smoke.exec(input);
      if (outcome.isError) throw new Unavailable(`${input.command} failed: ${outcome.content.slice(0, 200)}`);
    }
  } catch (error) {
    await backend?.close().catch(() => undefined);
    await redis?.close();
    result.status = error instanceof Unavailable ? "not available" : "failed";
    result.reason = messageOf(error).slice(0, 300);
    result.maxRssMiB = process.resourceUsage().maxRSS / 1024;
    return result;
  }
  try {
    const b = backend;
    await runPhase(result.phases, "mix", () => agentMix(b, config));
    for (const size of config.listing.sizes) {
      await runPhase(result.phases, `list-${size}`, () => listing(b, config, size));
    }
    await runPhase(result.phases, "paging", () => paging(b, config));
    await runPhase(result.phases, "concurrent-distinct", () => concurrentAgents(b, config, false));
    await runPhase(result.phases, "concurrent-shared", () => concurrentAgents(b, config, true));
    if (b.requestCounters) {
      send({ type: "progress", text: "request accounting" });
      try {
        const counts = await requestAccounting(b, config);
        if (counts) result.requestsByCommand = counts;
      } catch (error) {
        result.reason = `request accounting failed: ${messageOf(error).slice(0, 200)}`;
      }
    }
  } finally {
    await backend.close().catch(() => undefined);
    if (info?.family === "redis") await redis?.flush().catch(() => undefined);
    await redis?.close();
  }
  result.maxRssMiB = process.resourceUsage().maxRSS / 1024;
  return result;
};

process.on("message", (message: ParentMessage) => {
  if (message.type === "s3-requests") {
    pendingCounts.get(message.id)?.(message.total);
    pendingCounts.delete(message.id);
    return;
  }
  if (message.type !== "start") return;
  void benchmark(message.name, message.env, message.config)
    .catch(
      (error): WorkerResult => ({
        name: message.name,
        status: "failed",
        reason: messageOf(error).slice(0, 300),
        baselineRssMiB: 0,
        maxRssMiB: process.resourceUsage().maxRSS / 1024,
        phases: {},
      }),
    )
    .then((result) => {
      const message: ChildMessage = { type: "result", result };
      process.send?.(message, undefined, undefined, () => process.disconnect?.());
    });
});
