/** The workloads, each run against one backend inside the child process. */
import type { BenchConfig } from "./config.js";
import { forEachBounded, type LatencySummary, RssSampler, seededRandom, summarise } from "./stats.js";
import type { Backend, Tool, ToolInput } from "./subject.js";

export interface PhaseResult {
  latency: LatencySummary;
  /** Commands that returned an error result during the measured part. */
  errors: number;
  firstError?: string;
  /** Sampled peak RSS of the child during the phase, MiB. */
  peakRssMiB: number;
  seedMs: number;
  /** Backend requests per measured command, by counter, when the backend counts them. */
  requestsPerCommand?: Record<string, number>;
  /** p50 latency per command kind (agent mix). */
  p50ByCommand?: Record<string, number>;
  /** Lines of the listing output (listing). */
  outputLines?: number;
  /** Expected lines missing at the end (concurrency). */
  lostUpdates?: number;
  expectedLines?: number;
  /** A few of the missing lines, and expected lines found more than once (concurrency). */
  lostSample?: string[];
  duplicatedLines?: number;
  /** Backend counter deltas over the whole phase (concurrency), e.g. S3 torn reads. */
  requestDeltas?: Record<string, number>;
}

const FILLER = "the quick brown fox jumps over the lazy dog";
const pad = (n: number, width: number) => String(n).padStart(width, "0");
const factLine = (topic: number, j: number) => `- fact ${j} about topic ${topic}: ${FILLER}`;
const noteText = (topic: number, lines: number) =>
  `${Array.from({ length: lines }, (_, j) => factLine(topic, j)).join("\n")}\n`;

/**
 * Runs `create` for each file (or the backend's bulk seeding, for S3); fails loudly if any create is
 * refused, since the phase would be meaningless.
 */
const seed = async (
  tool: Tool,
  files: readonly { path: string; text: string }[],
  concurrency: number,
  bulk?: { backend: Backend; ns: string },
) => {
  const started = performance.now();
  if (bulk?.backend.bulkSeed) {
    await bulk.backend.bulkSeed(bulk.ns, files);
    return performance.now() - started;
  }
  await forEachBounded(files, concurrency, async ({ path, text }) => {
    const result = await tool.exec({ command: "create", path, file_text: text });
    if (result.isError) throw new Error(`seeding ${path} failed: ${result.content.slice(0, 200)}`);
  });
  return performance.now() - started;
};

class Recorder {
  readonly latencies: number[] = [];
  readonly kinds: string[] = [];
  errors = 0;
  firstError: string | undefined;

  async run(tool: Tool, kind: string, input: ToolInput): Promise<string> {
    const started = performance.now();
    const result = await tool.exec(input);
    this.latencies.push(performance.now() - started);
    this.kinds.push(kind);
    if (result.isError) {
      this.errors++;
      this.firstError ??= `${kind}: ${result.content.slice(0, 200)}`;
    }
    return result.content;
  }

  p50ByKind(): Record<string, number> {
    const byKind = new Map<string, number[]>();
    this.latencies.forEach((latency, i) => {
      const kind = this.kinds[i]!;
      byKind.set(kind, [...(byKind.get(kind) ?? []), latency]);
    });
    return Object.fromEntries([...byKind].map(([kind, values]) => [kind, summarise(values, 1).p50Ms]));
  }
}

const finish = (
  recorder: Recorder,
  wallMs: number,
  sampler: RssSampler,
  seedMs: number,
  extra: Partial<PhaseResult> = {},
): PhaseResult => ({
  latency: summarise(recorder.latencies, wallMs),
  errors: recorder.errors,
  ...(recorder.firstError ? { firstError: recorder.firstError } : {}),
  peakRssMiB: sampler.stop(),
  seedMs,
  ...extra,
});

const perCommand = (before: Record<string, number>, after: Record<string, number>, ops: number) =>
  Object.fromEntries(
    Object.entries(after).map(([name, value]) => [name, (value - (before[name] ?? 0)) / ops]),
  );

const requestsSince = async (backend: Backend, before: Record<string, number> | undefined, ops: number) =>
  before === undefined || !backend.requestCounters
    ? undefined
    : perCommand(before, await backend.requestCounters(), ops);

interface MixFile {
  path: string;
  topic: number;
}

/**
 * The agent mix: view 50%, str_replace 20%, create 10%, insert 10%, view of a directory 5%,
 * rename or delete 5%, over `files` notes of `linesPerFile` lines. The command sequence comes from a
 * fixed seed and does not depend on results, so every implementation runs the same sequence.
 */
export const agentMix = async (backend: Backend, config: BenchConfig): Promise<PhaseResult> => {
  const { files: count, dirs, linesPerFile, warmupOps, durationMs, maxOps } = config.mix;
  const sampler = new RssSampler();
  const tool = await backend.open("mix");
  const dirOf = (i: number) => `/memories/topic-${pad(i % dirs, 2)}`;
  const files: MixFile[] = Array.from({ length: count }, (_, i) => ({
    path: `${dirOf(i)}/note-${pad(i, 5)}.md`,
    topic: i,
  }));
  const seedMs = await seed(
    tool,
    files.map((f) => ({ path: f.path, text: noteText(f.topic, linesPerFile) })),
    config.seedConcurrency,
    { backend, ns: "mix" },
  );

  const random = seededRandom(20250818);
  const pick = (n: number) => Math.floor(random() * n);
  let counter = 0;
  let renameNext = true;
  const next = (): [string, ToolInput] => {
    counter++;
    const r = random();
    const at = pick(files.length);
    const file = files[at]!;
    if (r < 0.5) return ["view", { command: "view", path: file.path }];
    if (r < 0.7) {
      const oldStr = `fact ${pick(linesPerFile)} about topic ${file.topic}:`;
      return [
        "str_replace",
        { command: "str_replace", path: file.path, old_str: oldStr, new_str: `${oldStr} (revised)` },
      ];
    }
    if (r < 0.8) {
      const topic = 1_000_000 + counter;
      const path = `${dirOf(pick(dirs))}/new-${counter}.md`;
      files.push({ path, topic });
      return ["create", { command: "create", path, file_text: noteText(topic, linesPerFile) }];
    }
    if (r < 0.9) {
      const input = {
        command: "insert",
        path: file.path,
        insert_line: pick(linesPerFile + 1),
        insert_text: `- inserted note ${counter}\n`,
      };
      return ["insert", input];
    }
    if (r < 0.95) return ["view_dir", { command: "view", path: dirOf(pick(dirs)) }];
    renameNext = !renameNext || files.length < count / 2;
    if (renameNext) {
      const path = `${dirOf(pick(dirs))}/renamed-${counter}.md`;
      files[at] = { path, topic: file.topic };
      return ["rename", { command: "rename", old_path: file.path, new_path: path }];
    }
    files.splice(at, 1);
    return ["delete", { command: "delete", path: file.path }];
  };

  const warmup = new Recorder();
  for (let i = 0; i < warmupOps; i++) {
    const [kind, input] = next();
    await warmup.run(tool, kind, input);
  }
  const recorder = new Recorder();
  const before = await backend.requestCounters?.();
  const started = performance.now();
  while (recorder.latencies.length < maxOps && performance.now() - started < durationMs) {
    const [kind, input] = next();
    await recorder.run(tool, kind, input);
  }
  const wallMs = performance.now() - started;
  const requestsPerCommand = await requestsSince(backend, before, recorder.latencies.length);
  if (warmup.errors > 0) {
    recorder.errors += warmup.errors;
    recorder.firstError ??= warmup.firstError;
  }
  return finish(recorder, wallMs, sampler, seedMs, {
    p50ByCommand: recorder.p50ByKind(),
    ...(requestsPerCommand === undefined ? {} : { requestsPerCommand }),
  });
};

/** Repeated `view /memories` over a tree of `size` files, 100 per directory. */
export const listing = async (backend: Backend, config: BenchConfig, size: number): Promise<PhaseResult> => {
  const { filesPerDir, durationMs, minIterations, maxIterations } = config.listing;
  const sampler = new RssSampler();
  const tool = await backend.open(`list-${size}`);
  const text = `${"x".repeat(199)}\n`;
  const files = Array.from({ length: size }, (_, i) => ({
    path: `/memories/dir-${pad(Math.floor(i / filesPerDir), 3)}/file-${pad(i % filesPerDir, 3)}.md`,
    text,
  }));
  const seedMs = await seed(tool, files, config.seedConcurrency, { backend, ns: `list-${size}` });
  const recorder = new Recorder();
  const before = await backend.requestCounters?.();
  const first = await recorder.run(tool, "view_dir", { command: "view", path: "/memories" });
  let wallMs = recorder.latencies[0]!;
  let listings = 1;
  // A listing slower than the whole time box (s3rver with 10,000 objects) is measured once, cold;
  // otherwise the first run is a warm-up and the measured runs follow.
  if (wallMs < durationMs) {
    recorder.latencies.length = 0;
    recorder.kinds.length = 0;
    const started = performance.now();
    const more = () => {
      const n = recorder.latencies.length;
      const elapsed = performance.now() - started;
      if (n >= maxIterations) return false;
      return elapsed < durationMs || (n < minIterations && elapsed < 3 * durationMs);
    };
    while (more()) await recorder.run(tool, "view_dir", { command: "view", path: "/memories" });
    wallMs = performance.now() - started;
    listings += recorder.latencies.length;
  }
  const requestsPerCommand = await requestsSince(backend, before, listings);
  return finish(recorder, wallMs, sampler, seedMs, {
    outputLines: first.split("\n").length,
    ...(requestsPerCommand === undefined ? {} : { requestsPerCommand }),
  });
};

/** Paging through one file of `lines` lines with view_range windows of `pageLines`. */
export const paging = async (backend: Backend, config: BenchConfig): Promise<PhaseResult> => {
  const { lines, pageLines, durationMs, maxOps } = config.paging;
  const sampler = new RssSampler();
  const tool = await backend.open("paging");
  const text = `${Array.from({ length: lines }, (_, i) => `log line ${i + 1}: ${FILLER}`).join("\n")}\n`;
  const path = "/memories/logs/long.log";
  const seedMs = await seed(tool, [{ path, text }], 1);
  const recorder = new Recorder();
  const before = await backend.requestCounters?.();
  const started = performance.now();
  let start = 1;
  while (recorder.latencies.length < maxOps && performance.now() - started < durationMs) {
    await recorder.run(tool, "view_range", {
      command: "view",
      path,
      view_range: [start, start + pageLines - 1],
    });
    start = start + pageLines > lines ? 1 : start + pageLines;
  }
  const wallMs = performance.now() - started;
  const requestsPerCommand = await requestsSince(backend, before, recorder.latencies.length);
  return finish(recorder, wallMs, sampler, seedMs, {
    ...(requestsPerCommand === undefined ? {} : { requestsPerCommand }),
  });
};

/**
 * `agents` tool instances insert unique lines concurrently, each into its own file (`shared` false) or
 * all into one file (`shared` true). Lost updates are expected lines missing from the files at the end.
 */
export const concurrentAgents = async (
  backend: Backend,
  config: BenchConfig,
  shared: boolean,
): Promise<PhaseResult> => {
  const { agents, insertsPerAgent } = config.concurrency;
  const sampler = new RssSampler();
  const ns = shared ? "agents-shared" : "agents-distinct";
  const tools: Tool[] = [];
  for (let a = 0; a < agents; a++) tools.push(await backend.open(ns));
  const pathOf = (agent: number) =>
    shared ? "/memories/shared.md" : `/memories/agents/agent-${pad(agent, 2)}.md`;
  const paths = [...new Set(Array.from({ length: agents }, (_, a) => pathOf(a)))];
  const seedMs = await seed(
    tools[0]!,
    paths.map((path) => ({ path, text: noteText(0, 10) })),
    config.seedConcurrency,
  );
  const lineOf = (agent: number, k: number) => `agent ${agent} entry ${k}`;
  const recorder = new Recorder();
  const before = await backend.requestCounters?.();
  const started = performance.now();
  await Promise.all(
    tools.map(async (tool, agent) => {
      for (let k = 0; k < insertsPerAgent; k++) {
        const input = {
          command: "insert",
          path: pathOf(agent),
          insert_line: 0,
          insert_text: `${lineOf(agent, k)}\n`,
        };
        await recorder.run(tool, "insert", input);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const deltas = await requestsSince(backend, before, 1);
  let lost = 0;
  let duplicated = 0;
  const lostSample: string[] = [];
  for (const path of paths) {
    const seen = new Map<string, number>();
    for (const line of ((await tools[0]!.readText(path)) ?? "").split("\n"))
      seen.set(line, (seen.get(line) ?? 0) + 1);
    for (let agent = 0; agent < agents; agent++) {
      if (pathOf(agent) !== path) continue;
      for (let k = 0; k < insertsPerAgent; k++) {
        const count = seen.get(lineOf(agent, k)) ?? 0;
        if (count > 1) duplicated++;
        if (count > 0) continue;
        lost++;
        if (lostSample.length < 5) lostSample.push(lineOf(agent, k));
      }
    }
  }
  return finish(recorder, wallMs, sampler, seedMs, {
    lostUpdates: lost,
    expectedLines: agents * insertsPerAgent,
    ...(lost > 0 ? { lostSample } : {}),
    duplicatedLines: duplicated,
    ...(deltas ? { requestDeltas: deltas } : {}),
  });
};

/** Backend requests per command of each kind, over `accountingOps` commands each. */
export const requestAccounting = async (
  backend: Backend,
  config: BenchConfig,
): Promise<Record<string, Record<string, number>> | undefined> => {
  if (!backend.requestCounters) return undefined;
  const n = config.accountingOps;
  const tool = await backend.open("accounting");
  const file = (i: number) => `/memories/acct/dir-${pad(i % 4, 1)}/note-${pad(i, 3)}.md`;
  await seed(
    tool,
    Array.from({ length: 3 * n }, (_, i) => ({ path: file(i), text: noteText(i, 40) })),
    config.seedConcurrency,
  );
  const kinds: [string, (i: number) => ToolInput][] = [
    ["view", (i) => ({ command: "view", path: file(i) })],
    ["view_dir", (i) => ({ command: "view", path: `/memories/acct/dir-${i % 4}` })],
    [
      "create",
      (i) => ({ command: "create", path: `/memories/acct/new/n-${i}.md`, file_text: noteText(i, 40) }),
    ],
    [
      "str_replace",
      (i) => ({
        command: "str_replace",
        path: file(i),
        old_str: `fact 3 about topic ${i}:`,
        new_str: "fact 3 revised:",
      }),
    ],
    ["insert", (i) => ({ command: "insert", path: file(i), insert_line: 5, insert_text: "- inserted\n" })],
    [
      "rename",
      (i) => ({ command: "rename", old_path: file(n + i), new_path: `/memories/acct/moved/m-${i}.md` }),
    ],
    ["delete", (i) => ({ command: "delete", path: file(2 * n + i) })],
  ];
  const out: Record<string, Record<string, number>> = {};
  for (const [kind, make] of kinds) {
    const before = await backend.requestCounters();
    for (let i = 0; i < n; i++) {
      const result = await tool.exec(make(i));
      if (result.isError)
        throw new Error(`${kind} failed during request accounting: ${result.content.slice(0, 200)}`);
    }
    out[kind] = perCommand(before, await backend.requestCounters(), n);
  }
  return out;
};
