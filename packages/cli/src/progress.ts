/** Progress of long work: a bar on a terminal (stderr), nothing otherwise; a summary line at the end. */
import { createRequire } from "node:module";
import { formatSize } from "@mem/core";
import type { Context } from "./context.js";

type CliProgress = typeof import("cli-progress");

export interface Progress {
  /** One more file done, of `bytes` bytes. */
  tick(bytes: number): void;
  stop(): void;
}

export const startProgress = (ctx: Context, label: string, totalFiles: number, json: boolean): Progress => {
  if (json || ctx.io.stderr.isTTY !== true || totalFiles === 0) return { tick() {}, stop() {} };
  // Loaded only when a bar is drawn: it and its dependencies would add to every start-up of `mem`.
  const cliProgress = createRequire(import.meta.url)("cli-progress") as CliProgress;
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} {bar} {value}/{total} files | {size}`,
      stream: ctx.io.stderr as NodeJS.WritableStream,
      hideCursor: true,
      clearOnComplete: true,
      // cli-progress would otherwise keep drawing when stderr is not a terminal.
      noTTYOutput: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let bytes = 0;
  bar.start(totalFiles, 0, { size: formatSize(0) });
  return {
    tick(more) {
      bytes += more;
      bar.increment(1, { size: formatSize(bytes) });
    },
    stop() {
      bar.stop();
    },
  };
};

export interface Summary {
  files: number;
  bytes: number;
  seconds: number;
}

/** A stopwatch for summaries. */
export const stopwatch = (): (() => number) => {
  const start = process.hrtime.bigint();
  return () => Math.round(Number(process.hrtime.bigint() - start) / 1e6) / 1000;
};

/** `12 files, 4.1K in 0.3s` */
export const describeSummary = (summary: Summary): string =>
  `${summary.files} file${summary.files === 1 ? "" : "s"}, ${formatSize(summary.bytes)} in ${summary.seconds}s`;
