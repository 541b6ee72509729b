/**
 * The body of the `fence-writer` fixture of each store package: a process of its own that writes into one
 * tenant while the test process purges it (SPEC §7's erasure fence). Typed structurally, so the testkit
 * needs no `@mem/core` of its own.
 *
 * `commands`: runs each of the five writing commands once through the tool and prints each result as a
 * JSON line. `loop`: `writers` concurrent loops each create a file `/memories/w{i}.md` holding `pre{i}x`
 * until `stop` resolves; prints `ready` after 20 acknowledged writes, then
 * `{"acked": [[i, at]...], "refused": [i...]}`: the writes acknowledged with the wall clock at that moment,
 * and those refused as being erased.
 */
import type { ChildProcess } from "node:child_process";
import { outputOf, waitForLine } from "./fixtures.js";

export interface FenceWriterOptions {
  readonly mode: "commands" | "loop";
  readonly writers: number;
  readonly write: (path: string, data: Uint8Array) => Promise<unknown>;
  readonly execute: (input: Record<string, unknown>) => Promise<{ isError: boolean; content: string }>;
  readonly isErasing: (error: unknown) => boolean;
  readonly stop: Promise<void>;
}

/** The five writing commands, against a tenant holding `/memories/a.md` = `alpha\n`. */
export const FENCE_COMMANDS: readonly Record<string, unknown>[] = [
  { command: "create", path: "/memories/new.md", file_text: "fresh\n" },
  { command: "str_replace", path: "/memories/a.md", old_str: "alpha", new_str: "beta" },
  { command: "insert", path: "/memories/a.md", insert_line: 0, insert_text: "top\n" },
  { command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" },
  { command: "delete", path: "/memories/a.md" },
];

export const runFenceWriter = async (options: FenceWriterOptions): Promise<void> => {
  if (options.mode === "commands") {
    for (const command of FENCE_COMMANDS) {
      const result = await options.execute(command);
      process.stdout.write(`${JSON.stringify({ isError: result.isError, content: result.content })}\n`);
    }
    return;
  }
  let stopped = false;
  void options.stop.then(() => {
    stopped = true;
  });
  const acked: [number, number][] = [];
  const refused: number[] = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: options.writers }, async () => {
      while (!stopped) {
        const i = n++;
        try {
          await options.write(`/memories/w${i}.md`, new TextEncoder().encode(`pre${i}x\n`));
          acked.push([i, Date.now()]);
          if (acked.length === 20) process.stdout.write("ready\n");
        } catch (error) {
          if (!options.isErasing(error)) throw error;
          refused.push(i);
        }
      }
    }),
  );
  process.stdout.write(`${JSON.stringify({ acked, refused })}\n`);
};

/** What the `loop` mode printed last. */
export const fenceWriterSummary = (output: string): { acked: [number, number][]; refused: number[] } =>
  JSON.parse(output.trim().split("\n").at(-1)!) as { acked: [number, number][]; refused: number[] };

/**
 * The numbers `i` of the files left after the purge that must not be: written (acknowledged) before
 * `started`, when the purge began, or refused. `left` the numbers found in the medium.
 */
export const fenceViolations = (
  summary: { acked: [number, number][]; refused: number[] },
  started: number,
  left: readonly number[],
): number[] => {
  const after = new Set(summary.acked.filter(([, at]) => at >= started).map(([i]) => i));
  return left.filter((i) => !after.has(i));
};

/** The numbers `i` of every `pre{i}x` in `text` (a raw medium's bytes, as latin1). */
export const fenceMarkers = (text: string): number[] =>
  [...text.matchAll(/pre(\d+)x/g)].map((m) => Number(m[1]));

/** What the `commands` mode printed: one tool result per writing command. */
export const fenceCommandResults = (output: string): { isError: boolean; content: string }[] =>
  output
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { isError: boolean; content: string });

/** A refused change as the tool answers it (SPEC §7), five times: the `commands` mode under a fence. */
export const allFenced = (): { isError: boolean; content: string }[] =>
  FENCE_COMMANDS.map(() => ({
    isError: true,
    content: "Error: This memory is being erased; nothing was changed.",
  }));

/**
 * Races a purge against a `loop` fence writer: waits for its first writes, purges, stops it, and answers
 * its summary, the instant the purge began and what the purge reported.
 */
export const raceFenceWriter = async <P>(
  child: ChildProcess,
  purge: () => Promise<P>,
): Promise<{ summary: { acked: [number, number][]; refused: number[] }; started: number; purged: P }> => {
  const done = outputOf(child);
  await waitForLine(child, "ready");
  const started = Date.now();
  const purged = await purge();
  child.stdin?.end("stop\n");
  return { summary: fenceWriterSummary(await done), started, purged };
};
