/** Turns the children's results into targets, markdown tables and the JSON document. */
import type { BenchConfig } from "./config.js";
import type { ImplementationInfo } from "./implementations.js";
import type { WorkerResult } from "./worker.js";
import type { PhaseResult } from "./workloads.js";

export type ImplementationReport = ImplementationInfo & WorkerResult;

export interface Target {
  description: string;
  measured: string;
  status: "met" | "missed" | "not measured";
  note?: string;
}

export interface RunReport {
  startedAt: string;
  durationSeconds: number;
  quick: boolean;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    node: string;
    platform: string;
    /** 1-minute load average when the run started and when it ended: other work on the machine skews results. */
    loadAverage: { start: number; end: number };
  };
  notes: string[];
  config: BenchConfig;
  implementations: ImplementationReport[];
  targets: Target[];
}

const phaseOf = (impl: ImplementationReport | undefined, phase: string): PhaseResult | undefined => {
  const value = impl?.phases[phase];
  return value && "latency" in value ? value : undefined;
};

const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0
    ? undefined
    : a / b;

const fmtRatio = (value: number | undefined) =>
  value === undefined ? "–" : `${value >= 10 ? value.toFixed(0) : value.toFixed(2)}x`;

const fmtMs = (value: number | undefined): string => {
  if (value === undefined || !Number.isFinite(value)) return "–";
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  if (value >= 1) return value.toFixed(2);
  return value.toFixed(3);
};

const fmtRate = (value: number | undefined): string =>
  value === undefined || !Number.isFinite(value) ? "–" : Math.round(value).toLocaleString("en-US");

const fmtMiB = (value: number | undefined) => (value === undefined ? "–" : value.toFixed(0));

const fmtCount = (value: number | undefined) =>
  value === undefined ? "–" : value.toFixed(Number.isInteger(value) ? 0 : value >= 100 ? 0 : 2);

/** A markdown table; columns are right-aligned (numbers) unless `textColumns` says otherwise. */
const table = (headers: string[], rows: string[][], textColumns = 1): string =>
  [
    `| ${headers.join(" | ")} |`,
    `|${headers.map((_, i) => (i < textColumns ? "---" : "---:")).join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");

/** The S3 counter of GetObject replies whose body does not match their ETag (see s3-torn.ts). */
const TORN = "torn reads";

/** The raw baseline an implementation is compared with: same medium. */
const rawFor = (impl: ImplementationReport, all: ImplementationReport[]) =>
  impl.kind === "raw" || impl.family === "memory"
    ? undefined
    : all.find((other) => other.name === `raw-${impl.family}`);

export const computeTargets = (all: ImplementationReport[]): Target[] => {
  const byName = (name: string) => all.find((impl) => impl.name === name && impl.status === "ok");
  const targets: Target[] = [];
  const check = (
    description: string,
    value: number | undefined,
    pass: (v: number) => boolean,
    show: (v: number) => string,
    note?: string,
  ) => {
    targets.push({
      description,
      measured: value === undefined ? "–" : show(value),
      status: value === undefined ? "not measured" : pass(value) ? "met" : "missed",
      ...(note ? { note } : {}),
    });
  };
  const mix = (name: string) => phaseOf(byName(name), "mix")?.latency;

  check(
    "fs ≥ 2x the anchor's ops/s on the agent mix, durability at least as strong",
    ratio(mix("fs")?.opsPerSec, mix("anchor")?.opsPerSec),
    (v) => v >= 2,
    (v) => `${fmtRatio(v)} the anchor`,
    "the anchor fsyncs the file on create and edits but never its directory, and does not sync renames or deletes; FsStore fsyncs file and directory",
  );
  check(
    "listing 1,000 files ≥ 10x faster than the anchor (fs, p50)",
    ratio(
      phaseOf(byName("anchor"), "list-1000")?.latency.p50Ms,
      phaseOf(byName("fs"), "list-1000")?.latency.p50Ms,
    ),
    (v) => v >= 10,
    (v) => `${fmtRatio(v)} faster`,
  );
  const concurrent = (name: string, phase: string) => phaseOf(byName(name), phase)?.latency.opsPerSec;
  check(
    "fs ≥ 1.5x the anchor's ops/s, 16 agents on distinct files, durability unchanged",
    ratio(concurrent("fs", "concurrent-distinct"), concurrent("anchor", "concurrent-distinct")),
    (v) => v >= 1.5,
    (v) => `${fmtRatio(v)} the anchor`,
    "FsStore fsyncs each file and its directory before replying, under one cross-process lock per store; the anchor fsyncs the file only and takes no lock",
  );
  check(
    "fs ≥ 2x the 895 ops/s measured before, 16 agents on one shared file, 0 lost",
    concurrent("fs", "concurrent-shared"),
    (v) => v >= 1_790 && (phaseOf(byName("fs"), "concurrent-shared")?.lostUpdates ?? 1) === 0,
    (v) =>
      `${fmtRate(v)} ops/s (${fmtRatio(v / 895)} of 895), ${fmtRatio(ratio(v, concurrent("anchor", "concurrent-shared")) ?? Number.NaN)} the anchor`,
    "an absolute figure from another run on a loaded machine: compare with care",
  );
  const ours = all.filter((impl) => impl.kind === "ours");
  const lost: string[] = [];
  let lostTotal = 0;
  let measured = 0;
  for (const impl of ours) {
    for (const phase of ["concurrent-distinct", "concurrent-shared"]) {
      const value = phaseOf(impl, phase)?.lostUpdates;
      if (value === undefined) continue;
      measured++;
      lostTotal += value;
      const torn = phaseOf(impl, phase)?.requestDeltas?.[TORN] ?? 0;
      if (value > 0)
        lost.push(
          `${impl.name} ${phase}: ${value}${torn > 0 ? ` (after ${torn} torn reads from the server)` : ""}`,
        );
    }
  }
  const unmeasured = ours.filter((impl) => phaseOf(impl, "concurrent-shared")?.lostUpdates === undefined);
  check(
    "0 lost updates for ours (16 agents, distinct files and one shared file)",
    measured === 0 ? undefined : lostTotal,
    (v) => v === 0,
    (v) => (v === 0 ? `0 lost over ${measured} runs` : lost.join("; ")),
    unmeasured.length > 0 ? `not measured for: ${unmeasured.map((impl) => impl.name).join(", ")}` : undefined,
  );
  check(
    "Redis ≥ 50% of raw GET/SET ops/s (agent mix)",
    ratio(mix("redis")?.opsPerSec, mix("raw-redis")?.opsPerSec),
    (v) => v >= 0.5,
    (v) => `${(v * 100).toFixed(0)}%`,
  );
  check(
    "Postgres ≥ 70% of raw pg ops/s (agent mix)",
    ratio(mix("postgres")?.opsPerSec, mix("raw-postgres")?.opsPerSec),
    (v) => v >= 0.7,
    (v) => `${(v * 100).toFixed(0)}%`,
  );
  check(
    "encrypted ≤ 1.25x the latency of plain fs (agent mix, mean)",
    ratio(mix("encrypted-fs")?.meanMs, mix("fs")?.meanMs),
    (v) => v <= 1.25,
    (v) => fmtRatio(v),
  );
  check(
    "core overhead < 10% of fs latency (InMemoryStore mean / FsStore mean, agent mix)",
    ratio(mix("memory")?.meanMs, mix("fs")?.meanMs),
    (v) => v < 0.1,
    (v) => `${(v * 100).toFixed(1)}%`,
  );
  return targets;
};

export const renderMarkdown = (report: RunReport): string => {
  const all = report.implementations;
  const anchor = all.find((impl) => impl.name === "anchor");
  const ran = all.filter((impl) => impl.status === "ok");
  const out: string[] = [];
  const c = report.config;
  /** Name, ops/s, p50, p99, and ops/s relative to the anchor and to the raw baseline, for one phase. */
  const rateCells = (impl: ImplementationReport, phase: string): string[] => {
    const p = phaseOf(impl, phase);
    const raw = rawFor(impl, all);
    return [
      impl.name,
      fmtRate(p?.latency.opsPerSec),
      fmtMs(p?.latency.p50Ms),
      fmtMs(p?.latency.p99Ms),
      fmtRatio(ratio(p?.latency.opsPerSec, phaseOf(anchor, phase)?.latency.opsPerSec)),
      fmtRatio(ratio(p?.latency.opsPerSec, raw ? phaseOf(raw, phase)?.latency.opsPerSec : undefined)),
    ];
  };
  out.push(`# Benchmark results${report.quick ? " (--quick)" : ""}`);
  out.push("");
  out.push(
    `${report.startedAt}, ${report.durationSeconds.toFixed(0)} s; ${report.machine.cpus} × ${report.machine.cpuModel}, ` +
      `${report.machine.memoryGiB.toFixed(0)} GiB, Node ${report.machine.node} on ${report.machine.platform}; ` +
      `load average ${report.machine.loadAverage.start.toFixed(1)} at the start, ${report.machine.loadAverage.end.toFixed(1)} at the end.`,
  );
  out.push("");
  for (const note of report.notes) out.push(`- ${note}`);
  out.push("");

  out.push("## Targets");
  out.push("");
  out.push(
    table(
      ["target", "measured", "status"],
      report.targets.map((t) => [t.description + (t.note ? ` (${t.note})` : ""), t.measured, t.status]),
      3,
    ),
  );
  out.push("");

  out.push(
    `## Agent mix (${c.mix.files.toLocaleString("en-US")} files of ${c.mix.linesPerFile} lines; view 50%, str_replace 20%, create 10%, insert 10%, view dir 5%, rename/delete 5%)`,
  );
  out.push("");
  out.push(
    table(
      [
        "implementation",
        "ops/s",
        "p50 ms",
        "p99 ms",
        "vs anchor (ops/s)",
        "vs raw (ops/s)",
        "errors",
        "peak RSS MiB",
        "requests/cmd",
      ],
      ran.map((impl) => {
        const p = phaseOf(impl, "mix");
        return [
          ...rateCells(impl, "mix"),
          p ? String(p.errors) : "failed",
          fmtMiB(p?.peakRssMiB),
          p?.requestsPerCommand
            ? Object.entries(p.requestsPerCommand)
                .filter(([name]) => name !== TORN)
                .map(([name, value]) => `${fmtCount(value)} ${name}`)
                .join(", ")
            : "–",
        ];
      }),
    ),
  );
  out.push("");

  out.push("## Listing (`view /memories`, 100 files per directory)");
  out.push("");
  const listHeaders = ["implementation"];
  for (const size of c.listing.sizes) {
    const label = size.toLocaleString("en-US");
    listHeaders.push(
      `${label}: p50 ms`,
      `${label}: p99 ms`,
      `${label}: anchor p50 / this`,
      `${label}: raw p50 / this`,
      `${label}: peak RSS MiB`,
    );
  }
  out.push(
    table(
      listHeaders,
      ran.map((impl) => {
        const row = [impl.name];
        for (const size of c.listing.sizes) {
          const p = phaseOf(impl, `list-${size}`);
          const a = phaseOf(anchor, `list-${size}`);
          const raw = rawFor(impl, all);
          const r = raw ? phaseOf(raw, `list-${size}`) : undefined;
          row.push(
            fmtMs(p?.latency.p50Ms),
            fmtMs(p?.latency.p99Ms),
            fmtRatio(ratio(a?.latency.p50Ms, p?.latency.p50Ms)),
            fmtRatio(ratio(r?.latency.p50Ms, p?.latency.p50Ms)),
            fmtMiB(p?.peakRssMiB),
          );
        }
        return row;
      }),
    ),
  );
  out.push("");

  out.push(
    `## Paging (${c.paging.lines.toLocaleString("en-US")}-line file, view_range windows of ${c.paging.pageLines} lines)`,
  );
  out.push("");
  out.push(
    table(
      ["implementation", "ops/s", "p50 ms", "p99 ms", "vs anchor (ops/s)", "vs raw (ops/s)", "peak RSS MiB"],
      ran.map((impl) => {
        const p = phaseOf(impl, "paging");
        return [...rateCells(impl, "paging"), fmtMiB(p?.peakRssMiB)];
      }),
    ),
  );
  out.push("");

  out.push(
    `## ${c.concurrency.agents} concurrent agents (${c.concurrency.insertsPerAgent} inserts each; lost = expected lines missing at the end)`,
  );
  out.push("");
  out.push(
    table(
      [
        "implementation",
        "distinct files: ops/s",
        "p99 ms",
        "lost",
        "one shared file: ops/s",
        "p99 ms",
        "lost",
        "error results",
        "server torn reads",
      ],
      ran.map((impl) => {
        const d = phaseOf(impl, "concurrent-distinct");
        const s = phaseOf(impl, "concurrent-shared");
        return [
          impl.name,
          fmtRate(d?.latency.opsPerSec),
          fmtMs(d?.latency.p99Ms),
          d?.lostUpdates === undefined ? "–" : `${d.lostUpdates} / ${d.expectedLines}`,
          fmtRate(s?.latency.opsPerSec),
          fmtMs(s?.latency.p99Ms),
          s?.lostUpdates === undefined ? "–" : `${s.lostUpdates} / ${s.expectedLines}`,
          d && s ? String(d.errors + s.errors) : "–",
          d?.requestDeltas?.[TORN] === undefined && s?.requestDeltas?.[TORN] === undefined
            ? "–"
            : String((d?.requestDeltas?.[TORN] ?? 0) + (s?.requestDeltas?.[TORN] ?? 0)),
        ];
      }),
    ),
  );
  out.push("");
  if (
    ran.some((impl) =>
      Object.values(impl.phases).some((p) => "latency" in p && (p.requestDeltas?.[TORN] ?? 0) > 0),
    )
  ) {
    out.push(
      "Server torn reads: GetObject replies whose body did not hash to their ETag. s3rver answers a PutObject before the object file is fully written, so a read right after it can get the new ETag with a truncated or empty body; an edit based on it passes If-Match and drops the missing lines. Lost updates that follow torn reads come from the test server, not from the store.",
    );
    out.push("");
  }

  const counted = ran.filter((impl) => impl.requestsByCommand);
  if (counted.length > 0) {
    const kinds = ["view", "view_dir", "create", "str_replace", "insert", "rename", "delete"];
    out.push("## Backend requests per command");
    out.push("");
    out.push(
      "Redis: round trips = commands our clients sent (a pipeline of n counts n); server commands = INFO commandstats, including commands run inside Lua scripts. Postgres: round trips = statements our pools sent. S3: HTTP requests counted at the proxy.",
    );
    out.push("");
    const rows: string[][] = [];
    for (const impl of counted) {
      const counters = Object.keys(Object.values(impl.requestsByCommand ?? {})[0] ?? {}).filter(
        (c) => c !== TORN,
      );
      for (const counter of counters) {
        rows.push([
          impl.name,
          counter,
          ...kinds.map((kind) => fmtCount(impl.requestsByCommand?.[kind]?.[counter])),
          fmtCount(phaseOf(impl, "mix")?.requestsPerCommand?.[counter]),
          fmtCount(phaseOf(impl, "list-1000")?.requestsPerCommand?.[counter]),
        ]);
      }
    }
    out.push(table(["implementation", "counter", ...kinds, "agent mix", "listing 1,000"], rows));
    out.push("");
  }

  out.push("## Implementations");
  out.push("");
  out.push(
    table(
      ["implementation", "what", "durability", "status", "RSS at start / peak MiB"],
      all.map((impl) => [
        impl.name,
        impl.label,
        impl.durability,
        impl.status === "ok"
          ? impl.reason
            ? `ok (${impl.reason})`
            : "ok"
          : `${impl.status}: ${impl.reason ?? ""}`,
        impl.status === "ok" ? `${fmtMiB(impl.baselineRssMiB)} / ${fmtMiB(impl.maxRssMiB)}` : "–",
      ]),
      4,
    ),
  );
  const failedPhases = ran.flatMap((impl) =>
    Object.entries(impl.phases)
      .filter(([, value]) => "failed" in value)
      .map(([phase, value]) => `${impl.name} ${phase}: ${(value as { failed: string }).failed}`),
  );
  const errors = ran.flatMap((impl) =>
    Object.entries(impl.phases)
      .map(([phase, value]) =>
        "firstError" in value && value.firstError ? `${impl.name} ${phase}: ${value.firstError}` : "",
      )
      .filter(Boolean),
  );
  if (failedPhases.length + errors.length > 0) {
    out.push("");
    out.push("## Failures and first error results");
    out.push("");
    for (const line of [...failedPhases, ...errors]) out.push(`- ${line.replace(/\n/g, "⏎")}`);
  }
  out.push("");
  return out.join("\n");
};
