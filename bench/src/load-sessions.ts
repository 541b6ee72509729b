/**
 * The sessions of the load benchmark: what each tenant holds at the start, and what one agent does in
 * a session. Every line an agent adds is unique and remembered, so lost updates are counted at the end.
 */
import { seededRandom } from "./stats.js";
import type { Tool, ToolInput } from "./subject.js";

/** Lines that must be in a file at the end, by `{tenant index}:{path}`. */
export type Expected = Map<string, Set<string>>;

export const LOG = "/memories/shared/log.md";
const READABLE = [
  "/memories/notes/n0.md",
  "/memories/notes/n1.md",
  "/memories/notes/n2.md",
  "/memories/notes/n3.md",
  "/memories/projects/p0.md",
  "/memories/projects/p1.md",
];

const noteText = (t: number, i: number): string =>
  `${Array.from({ length: 20 }, (_, line) => `fact ${line} about tenant ${t}, topic ${i}: ${"lorem ipsum ".repeat(3)}`).join("\n")}\n`;

/**
 * Creates a tenant's files: six notes in two directories and the shared log agents append to. Returns
 * the bytes of text written.
 */
export const seedTenant = async (tool: Tool, t: number, expected: Expected): Promise<number> => {
  const files = [...READABLE.map((path, i) => [path, noteText(t, i)] as const), [LOG, "# log\n"] as const];
  let bytes = 0;
  for (const [path, text] of files) {
    const result = await tool.exec({ command: "create", path, file_text: text });
    if (result.isError) throw new Error(`seeding ${path}: ${result.content}`);
    bytes += Buffer.byteLength(text);
  }
  expected.set(`${t}:${LOG}`, new Set());
  return bytes;
};

export interface LevelResult {
  commands: number;
  sessions: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  errors: number;
  firstError: string | undefined;
}

let runs = 0;

/**
 * `agents` agents repeat sessions for `durationMs`, each on a tenant chosen per session: the share `hot`
 * of the sessions go to tenant 0 (a hot tenant, so agents meet on one file), the rest anywhere.
 */
export const runLevel = async (
  tools: readonly Tool[],
  agents: number,
  durationMs: number,
  expected: Expected,
  hot: number,
): Promise<LevelResult> => {
  const run = ++runs;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let sessions = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  const timed = async (tool: Tool, input: ToolInput) => {
    const began = performance.now();
    let result: { content: string; isError: boolean };
    try {
      result = await tool.exec(input);
    } catch (error) {
      result = { content: `thrown: ${String(error)}`, isError: true };
    }
    latencies.push(performance.now() - began);
    if (result.isError) {
      errors++;
      firstError ??= `${String(input["command"])} ${String(input["path"] ?? input["old_path"])}: ${result.content}`;
    }
    return result;
  };
  const agent = async (a: number) => {
    const random = seededRandom(run * 1000 + a + 1);
    const pick = (n: number) => Math.floor(random() * n);
    /** This agent's scratch files, by tenant: only it renames or deletes them. */
    const scratch = new Map<number, string>();
    for (let seq = 0; performance.now() < deadline; seq++) {
      const t = random() < hot ? 0 : pick(tools.length);
      const tool = tools[t]!;
      await timed(tool, { command: "view", path: "/memories" });
      const views = 2 + pick(2);
      for (let i = 0; i < views; i++)
        await timed(tool, { command: "view", path: READABLE[pick(READABLE.length)]! });
      const line = `r${run}-a${a}-s${seq}`;
      const added = await timed(tool, { command: "insert", path: LOG, insert_line: 1, insert_text: line });
      const lines = expected.get(`${t}:${LOG}`)!;
      if (!added.isError) lines.add(line);
      if (!added.isError && random() < 0.5) {
        const done = `${line} done`;
        const edited = await timed(tool, { command: "str_replace", path: LOG, old_str: line, new_str: done });
        if (!edited.isError) {
          lines.delete(line);
          lines.add(done);
        }
      }
      const r = random();
      const own = scratch.get(t);
      if (own === undefined && r < 0.15) {
        const path = `/memories/scratch/${line}.md`;
        const made = await timed(tool, { command: "create", path, file_text: `draft ${line}\n` });
        if (!made.isError) scratch.set(t, path);
      } else if (own !== undefined && r < 0.08) {
        const to = own.replace(/\.md$/, "-x.md");
        const moved = await timed(tool, { command: "rename", old_path: own, new_path: to });
        if (!moved.isError) scratch.set(t, to);
      } else if (own !== undefined && r < 0.16) {
        const gone = await timed(tool, { command: "delete", path: own });
        if (!gone.isError) scratch.delete(t);
      }
      sessions++;
    }
  };
  await Promise.all(Array.from({ length: agents }, (_, a) => agent(a)));
  const wallMs = performance.now() - start;
  const sorted = Float64Array.from(latencies).sort();
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return {
    commands: latencies.length,
    sessions,
    opsPerSec: (latencies.length * 1000) / wallMs,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    p999Ms: at(0.999),
    errors,
    firstError,
  };
};
