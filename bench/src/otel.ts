/**
 * `pnpm --filter @mem/bench bench:otel [--quick] [--baseline=<git ref>]`: what tracing costs on the agent
 * mix. Four modes, run in blocks whose order rotates each round:
 * - `baseline`: core as it was before it published on diagnostics channels (extracted from git),
 * - `none`: today's core, nothing subscribed,
 * - `off`: `instrument()` of `@mem/otel` with no OpenTelemetry SDK registered (the API's no-op tracer),
 * - `on`: `instrument()` with the SDK registered, spans batched to an in-memory exporter, metrics read
 *   every second into an in-memory exporter.
 * Writes results/otel.md (or results/otel-quick.md).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { type Instrumentation, instrument } from "@mem/otel";
import { metrics, trace } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { defaultConfig, quickConfig } from "./config.js";
import { EXECUTE_OPTIONS } from "./ours.js";
import type { Backend, ToolInput, ToolOutcome } from "./subject.js";
import { agentMix } from "./workloads.js";

const quick = process.argv.includes("--quick");
const config = quick ? quickConfig : defaultConfig;
const rounds = quick ? 3 : 5;
const decoder = new TextDecoder();
const repo = new URL("../../", import.meta.url);

type Execute = (store: MemoryStore, input: unknown, options: object) => Promise<ToolOutcome>;
type Mode = "baseline" | "none" | "off" | "on";
const MODES: readonly Mode[] = ["baseline", "none", "off", "on"];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** The commit before the one that added core's diagnostics channels, unless `--baseline=` names one. */
const baselineRef = (): string => {
  const given = process.argv.find((a) => a.startsWith("--baseline="));
  if (given) return given.slice("--baseline=".length);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" }).trim();
  const added = git("log", "--diff-filter=A", "--format=%H", "--", "packages/core/src/diagnostics.ts")
    .split("\n")
    .at(-1);
  if (!added) throw new Error("no commit adds packages/core/src/diagnostics.ts: pass --baseline=<ref>");
  return `${added}^`;
};

/** Core's `executeCommand` and `InMemoryStore` at `ref`, extracted into `dir`. */
const loadBaseline = async (ref: string, dir: string) => {
  const archive = execFileSync("git", ["archive", ref, "packages/core/src"], { cwd: repo });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  const core = (await import(pathToFileURL(join(dir, "packages/core/src/index.ts")).href)) as {
    executeCommand: Execute;
    InMemoryStore: new () => MemoryStore;
  };
  return core;
};

/** Mean time per command from the median time of each command kind, weighted by how often it ran. */
const opsPerSecond = (times: Map<string, number[]>): number => {
  let total = 0;
  let count = 0;
  for (const list of times.values()) {
    total += median(list) * list.length;
    count += list.length;
  }
  return 1000 / (total / count);
};

/** A backend over one store that times each command run alone (seeding runs several at once). */
const timedBackend = (store: MemoryStore, execute: Execute, times: Map<string, number[]>): Backend => {
  let inFlight = 0;
  return {
    async open() {
      return {
        async exec(input: ToolInput) {
          const alone = ++inFlight === 1;
          const started = performance.now();
          const result = await execute(store, input, EXECUTE_OPTIONS);
          const ms = performance.now() - started;
          if (alone && inFlight === 1) {
            const key = String(input["command"]);
            const list = times.get(key);
            if (list) list.push(ms);
            else times.set(key, [ms]);
          }
          inFlight--;
          return result;
        },
        readText: async (path) => {
          const file = await store.read(path);
          return file ? decoder.decode(file.data) : null;
        },
      };
    },
    async close() {},
  };
};

/** Sets a mode up; returns its teardown and the number of spans it exported. */
const enter = async (mode: Mode) => {
  let instrumentation: Instrumentation | undefined;
  let teardown = async () => {};
  let exported = () => 0;
  if (mode === "off") instrumentation = instrument();
  if (mode === "on") {
    let spans = 0;
    // Counts what reaches it and keeps only the latest batch: a long run must not hold every span.
    class CountingExporter extends InMemorySpanExporter {
      override export(...args: Parameters<InMemorySpanExporter["export"]>) {
        spans += args[0].length;
        this.reset();
        super.export(...args);
      }
    }
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(new CountingExporter())],
    });
    const reader = new PeriodicExportingMetricReader({
      exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 1000,
    });
    const meterProvider = new MeterProvider({ readers: [reader] });
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(meterProvider);
    instrumentation = instrument();
    exported = () => spans;
    teardown = async () => {
      await tracerProvider.forceFlush();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      metrics.disable();
    };
  }
  return {
    exported,
    async leave() {
      instrumentation?.uninstrument();
      await teardown();
    },
  };
};

const tmp = mkdtempSync(join(tmpdir(), "mem-bench-otel-"));
const ref = baselineRef();
const baselineDir = join(tmp, "baseline");
mkdirSync(baselineDir);
const baseline = await loadBaseline(ref, baselineDir);

const subjects: { name: string; make: (mode: Mode) => MemoryStore }[] = [
  {
    name: "InMemoryStore",
    make: (mode) => (mode === "baseline" ? new baseline.InMemoryStore() : new InMemoryStore()),
  },
  { name: "FsStore", make: () => new FsStore({ root: mkdtempSync(join(tmp, "fs-")) }) },
];

const lines = [
  `# Tracing cost on the agent mix${quick ? " (quick)" : ""}`,
  "",
  `Median of ${rounds} rounds of ${config.mix.durationMs} ms per mode (modes in rotating order; per mode the median time of each command kind, weighted by how often it ran), ${config.mix.files} files of ${config.mix.linesPerFile} lines. Baseline: core at \`${execFileSync("git", ["rev-parse", "--short", ref], { cwd: repo, encoding: "utf8" }).trim()}\`. Costs are ops/s of the reference ÷ ops/s of the mode.`,
  "",
  "| store | ops/s baseline | ops/s none | ops/s off | ops/s on | none vs baseline | off vs none | on vs none | spans exported (on) |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
];
try {
  for (const subject of subjects) {
    const rates = new Map<Mode, number[]>(MODES.map((m) => [m, []]));
    const spans: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < MODES.length; i++) {
        const mode = MODES[(i + round) % MODES.length]!;
        const store = subject.make(mode);
        const execute: Execute = mode === "baseline" ? baseline.executeCommand : executeCommand;
        const times = new Map<string, number[]>();
        const state = await enter(mode);
        try {
          const result = await agentMix(timedBackend(store, execute, times), config);
          if (result.errors > 0 && result.firstError?.includes("Refused")) throw new Error(result.firstError);
        } finally {
          await state.leave();
          await store.close?.();
        }
        rates.get(mode)!.push(opsPerSecond(times));
        if (mode === "on") spans.push(state.exported());
      }
    }
    const rate = (mode: Mode) => median(rates.get(mode)!);
    const fmt = (n: number) => Math.round(n).toLocaleString("en");
    const cost = (reference: Mode, mode: Mode) => `${(rate(reference) / rate(mode)).toFixed(3)}x`;
    const row = `| ${subject.name} | ${fmt(rate("baseline"))} | ${fmt(rate("none"))} | ${fmt(rate("off"))} | ${fmt(rate("on"))} | ${cost("baseline", "none")} | ${cost("none", "off")} | ${cost("none", "on")} | ${fmt(median(spans))} |`;
    console.log(row);
    lines.push(row);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
writeFileSync(
  new URL(`../results/otel${quick ? "-quick" : ""}.md`, import.meta.url),
  `${lines.join("\n")}\n`,
);
