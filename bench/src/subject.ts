/** What every benchmarked implementation looks like to the workloads. */

export type ToolInput = Record<string, unknown>;

export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/** One tool instance, as one agent process would hold it. */
export interface Tool {
  exec(input: ToolInput): Promise<ToolOutcome>;
  /** The file's whole text, read without going through the tool (for checking results). */
  readText(path: string): Promise<string | null>;
}

/** One implementation's storage, set up inside the child process that benchmarks it. */
export interface Backend {
  /**
   * A tool over namespace `ns` (an fs directory, a Redis prefix, an S3 prefix, a Postgres tenant). Every call returns a
   * separate instance over the same data, like another process would have.
   */
  open(ns: string): Promise<Tool>;
  /**
   * Monotonic request counters by name (e.g. Redis round trips and server-side commands, S3 HTTP
   * requests), read before and after a measured stretch to get requests per command.
   */
  requestCounters?(): Promise<Record<string, number>>;
  /**
   * Writes files into namespace `ns` without going through the tool, in the layout the tool reads.
   * Only for backends where seeding through the tool would dominate the run time (S3).
   */
  bulkSeed?(ns: string, files: readonly { path: string; text: string }[]): Promise<void>;
  /** Closes every tool it opened and every connection it holds. */
  close(): Promise<void>;
}

/** Servers and directories the parent process prepared, passed to each child. */
export interface ChildEnv {
  /** A directory the child may use; the parent removes it at the end. */
  tmpDir: string;
  redisUrl?: string;
  postgresUrl?: string;
  s3?: {
    endpoint: string;
    /** s3rver without the proxy: no precondition checks, no request accounting; used for bulk seeding. */
    directEndpoint: string;
    bucket: string;
    region: string;
    credentials: { accessKeyId: string; secretAccessKey: string };
  };
}

/** Thrown when an implementation cannot run yet (package missing, export missing, server missing). */
export class Unavailable extends Error {}

export const RELATIVE = /^\/memories\/?/;

/** `/memories/a/b` → `a/b`; `/memories` → `""`. */
export const relativeOf = (path: string): string => path.replace(RELATIVE, "");

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
