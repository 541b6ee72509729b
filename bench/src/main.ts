/**
 * `pnpm bench [--quick] [--only=name,name]`: runs every implementation through every workload, each in
 * its own child process, then writes results/results.md and results/results.json (results-quick.* with
 * --quick) and prints the tables.
 * Servers (redis-server, PostgreSQL, s3rver + proxy) run in this process's care and are stopped at the end, even on
 * error or interruption; temporary directories are removed.
 */
import { type ChildProcess, fork } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchConfig, defaultConfig, quickConfig } from "./config.js";
import { IMPLEMENTATIONS, type ImplementationInfo } from "./implementations.js";
import { benchLoad } from "./load-run.js";
import { computeTargets, type ImplementationReport, type RunReport, renderMarkdown } from "./report.js";
import { runScale } from "./scale.js";
import { type ChildEnv, messageOf } from "./subject.js";
import type { ChildMessage, ParentMessage, WorkerResult } from "./worker.js";

interface RedisHandle {
  url: string;
  stop(): Promise<void>;
}
interface PostgresHandle {
  url: string;
  stop(): Promise<void>;
}
interface S3Handle {
  endpoint: string;
  directEndpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  requests: { total(): number };
  stop(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));
const benchDir = dirname(here);
const resultsDir = join(benchDir, "results");

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const only = args
  .find((arg) => arg.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",")
  .filter(Boolean);
const config: BenchConfig = quick ? quickConfig : defaultConfig;
const selected = IMPLEMENTATIONS.filter((impl) => !only || only.includes(impl.name));
// `scale` names the durable-write floor and listing scale tables (scale.ts), `load` the load (load-run.ts).
const unknown =
  only?.filter(
    (name) => name !== "scale" && name !== "load" && !IMPLEMENTATIONS.some((impl) => impl.name === name),
  ) ?? [];
if (unknown.length > 0) {
  console.error(
    `unknown implementation(s): ${unknown.join(", ")}; known: ${IMPLEMENTATIONS.map((i) => i.name).join(", ")}, scale, load`,
  );
  process.exit(2);
}

const cleanups: (() => Promise<void>)[] = [];
const children = new Set<ChildProcess>();
/** Everything the run writes to disk, servers' directories included, lives here. */
let runDir: string | undefined;
let cleaning: Promise<void> | undefined;
const cleanup = (): Promise<void> => {
  cleaning ??= (async () => {
    for (const child of children) child.kill("SIGKILL");
    for (const task of cleanups.reverse()) await task().catch(() => undefined);
  })();
  return cleaning;
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping servers and removing temporary directories`);
    // The testkit's own handler kills redis-server and re-raises the signal right after this one, so
    // what must happen does so synchronously here.
    for (const child of children) child.kill("SIGKILL");
    if (runDir) rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
    void cleanup().finally(() => process.exit(130));
  });
}

const log = (text: string) => process.stdout.write(`${text}\n`);

const startServers = async (env: ChildEnv, problems: Map<string, string>) => {
  const needs = new Set(selected.map((impl) => impl.needs).filter(Boolean));
  if (needs.size === 0) return undefined;
  // The testkit makes the servers' directories under the OS temp dir; put them inside this run's
  // directory so that an interrupted run leaves nothing behind either.
  const savedTmp = process.env["TMPDIR"];
  process.env["TMPDIR"] = join(env.tmpDir, "servers");
  mkdirSync(process.env["TMPDIR"], { recursive: true });
  // As root, PostgreSQL runs as the postgres system user, which must be able to reach its directory.
  chmodSync(env.tmpDir, 0o711);
  chmodSync(process.env["TMPDIR"], 0o711);
  try {
    return await startServersIn(env, problems, needs);
  } finally {
    if (savedTmp === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = savedTmp;
  }
};

const startServersIn = async (
  env: ChildEnv,
  problems: Map<string, string>,
  needs: Set<string | undefined>,
) => {
  let testkit: {
    startRedis(): Promise<RedisHandle>;
    startPostgres(): Promise<PostgresHandle>;
    startS3(): Promise<S3Handle>;
  };
  try {
    testkit = (await import("@mem/testkit")) as unknown as typeof testkit;
  } catch (error) {
    const reason = `@mem/testkit does not load: ${messageOf(error)}`;
    problems.set("redis", reason);
    problems.set("s3", reason);
    problems.set("postgres", reason);
    return undefined;
  }
  let s3: S3Handle | undefined;
  if (needs.has("redis")) {
    try {
      const redis = await testkit.startRedis();
      cleanups.push(() => redis.stop());
      env.redisUrl = redis.url;
      log(`redis-server: ${redis.url}`);
    } catch (error) {
      problems.set("redis", `redis-server did not start: ${messageOf(error).split("\n")[0]}`);
    }
  }
  if (needs.has("postgres")) {
    try {
      const postgres = await testkit.startPostgres();
      cleanups.push(() => postgres.stop());
      env.postgresUrl = postgres.url;
      log("PostgreSQL: started on a loopback port");
    } catch (error) {
      problems.set("postgres", `PostgreSQL did not start: ${messageOf(error).split("\n")[0]}`);
    }
  }
  if (needs.has("s3")) {
    try {
      s3 = await testkit.startS3();
      const server = s3;
      cleanups.push(() => server.stop());
      env.s3 = {
        endpoint: s3.endpoint,
        directEndpoint: s3.directEndpoint,
        bucket: s3.bucket,
        region: s3.region,
        credentials: s3.credentials,
      };
      log(`s3rver behind the testkit proxy: ${s3.endpoint}`);
    } catch (error) {
      problems.set("s3", `S3 server did not start: ${messageOf(error).split("\n")[0]}`);
    }
  }
  return s3;
};

const runChild = (info: ImplementationInfo, env: ChildEnv, s3: S3Handle | undefined): Promise<WorkerResult> =>
  new Promise((resolve) => {
    const started = performance.now();
    // The child inherits this process's execArgv: tsx's loader and the @mem/source condition.
    const child = fork(join(here, "worker.ts"), [], {
      cwd: benchDir,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      // The SDK's notice about future Node versions would only clutter the output.
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    });
    children.add(child);
    let result: WorkerResult | undefined;
    const failed = (reason: string): WorkerResult => ({
      name: info.name,
      status: "failed",
      reason,
      baselineRssMiB: 0,
      maxRssMiB: 0,
      phases: {},
    });
    const timer = setTimeout(() => {
      result ??= failed(`timed out after ${config.childTimeoutMs / 1000} s`);
      child.kill("SIGKILL");
    }, config.childTimeoutMs);
    child.on("message", (message: ChildMessage) => {
      if (message.type === "progress") {
        log(`  ${info.name}: ${message.text} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      } else if (message.type === "s3-requests") {
        const reply: ParentMessage = {
          type: "s3-requests",
          id: message.id,
          total: s3?.requests.total() ?? 0,
        };
        child.send(reply);
      } else if (message.type === "result") {
        result = message.result;
        // Done: give the child a moment to exit on its own, then make sure it is gone.
        setTimeout(() => child.kill("SIGKILL"), 3_000).unref();
      }
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve(result ?? failed(`child exited (${signal ?? `code ${code}`}) without a result`));
    });
    const start: ParentMessage = { type: "start", name: info.name, env, config };
    child.send(start);
  });

const main = async (): Promise<void> => {
  const startedAt = new Date();
  const loadAtStart = loadavg()[0] ?? 0;
  const started = performance.now();
  const tmpDir = mkdtempSync(join(tmpdir(), "mem-bench-"));
  runDir = tmpDir;
  cleanups.push(async () => rmSync(tmpDir, { recursive: true, force: true, maxRetries: 3 }));
  const env: ChildEnv = { tmpDir };
  const problems = new Map<string, string>();
  const implementations: ImplementationReport[] = [];
  try {
    log(`mem bench${quick ? " --quick" : ""}: ${selected.map((impl) => impl.name).join(", ")}`);
    const s3 = await startServers(env, problems);
    for (const info of selected) {
      const problem = info.needs ? problems.get(info.needs) : undefined;
      let result: WorkerResult;
      if (problem) {
        result = {
          name: info.name,
          status: "not available",
          reason: problem,
          baselineRssMiB: 0,
          maxRssMiB: 0,
          phases: {},
        };
      } else {
        log(`${info.name}: ${info.label}`);
        const childEnv: ChildEnv = { ...env, tmpDir: join(tmpDir, info.name) };
        mkdirSync(childEnv.tmpDir, { recursive: true });
        result = await runChild(info, childEnv, s3);
        // Each implementation's files go as soon as it is done, so disk use stays small.
        rmSync(childEnv.tmpDir, { recursive: true, force: true });
      }
      if (result.status !== "ok") log(`${info.name}: ${result.status}: ${result.reason ?? ""}`);
      implementations.push({ ...info, ...result });
    }
  } finally {
    await cleanup();
  }

  // The durable-write floor and the listing scale tables (scale.ts), in this process after the children.
  const scale = only && !only.includes("scale") ? undefined : await runScale(quick, log);
  // Tenants × agents on every store and its raw driver (load-run.ts), with their ratios.
  const loadSvg = `${quick ? "results-quick" : "results"}-load.svg`;
  const load = only && !only.includes("load") ? undefined : await benchLoad(quick, loadSvg, log);

  const cpuList = cpus();
  const report: RunReport = {
    startedAt: startedAt.toISOString(),
    durationSeconds: (performance.now() - started) / 1000,
    quick,
    machine: {
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model.trim() ?? "unknown CPU",
      memoryGiB: totalmem() / 1024 ** 3,
      node: process.version,
      platform: `${platform()} ${release()}`,
      loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
    },
    notes: [
      "One process per implementation (forked, same Node flags); peak RSS is that child's, sampled every 5 ms during each phase. Servers (redis-server, PostgreSQL, s3rver and its proxy) run outside the child and are not counted.",
      "S3 runs go through the testkit's precondition-enforcing proxy in front of s3rver (needed for conditional writes); raw S3 uses the same proxy.",
      "Latencies are per tool command, measured in the child around the call; ops/s is commands completed per second of wall time, one agent at a time except in the concurrency runs.",
      "Ratios: 'vs anchor' and 'vs raw' divide this implementation's ops/s by theirs (higher is better); the listing columns divide the anchor's (or the raw baseline's) p50 by this one's (higher is better).",
      "Our listings stop at 1,000 entries (listLimit, per SPEC); the anchor prints every entry.",
    ],
    config,
    implementations,
    targets: [...computeTargets(implementations), ...(scale?.targets ?? []), ...(load?.targets ?? [])],
  };
  const markdown = [renderMarkdown(report), scale?.markdown, load?.markdown].filter(Boolean).join("\n");
  // A quick run (CI's) never overwrites the figures of the last full run.
  const base = quick ? "results-quick" : "results";
  const written = [join(resultsDir, `${base}.md`), join(resultsDir, `${base}.json`)];
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(written[0]!, markdown);
  writeFileSync(written[1]!, `${JSON.stringify(report, null, 2)}\n`);
  if (load?.svg) {
    writeFileSync(join(resultsDir, loadSvg), load.svg);
    written.push(join(resultsDir, loadSvg));
  }
  log("");
  log(markdown);
  log(`Targets (reported, never asserted):`);
  for (const target of report.targets) log(`  [${target.status}] ${target.description}: ${target.measured}`);
  log(`\nwritten: ${written.join(", ")}`);
};

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    console.error(error);
    await cleanup();
    process.exit(1);
  },
);
