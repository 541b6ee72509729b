/**
 * Running server processes for tests: finding binaries, spawning a server in its own process group with a
 * watchdog, and waiting for it to answer. Shared by every starter in this package.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { trackProcess } from "./cleanup.js";

const HOST = "127.0.0.1";

// Kills process group $0 as soon as its stdin closes: the parent closes it when it stops the server, and
// the kernel closes it when the parent dies in any way (even SIGKILL), so no server outlives the tests.
const WATCHDOG = `while read -r _; do :; done; kill -9 -"$0" 2>/dev/null`;

const isExecutable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The absolute path of `binary` on PATH (or `binary` itself when it is a path); `undefined` if absent. */
export const findOnPath = (binary: string): string | undefined => {
  if (binary.includes("/")) return isExecutable(binary) ? binary : undefined;
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, binary);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 50 ms until it returns true; throws naming `what` after `timeoutMs`. */
export const waitFor = async (
  what: string,
  timeoutMs: number,
  check: () => Promise<boolean>,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    await sleep(50);
  }
  const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
};

/** True when nothing listens on `port` of 127.0.0.1. */
export const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });

/** A server process started by `spawnWatched`. */
export interface WatchedProcess {
  readonly child: ChildProcess;
  /** Resolves when the process has exited (for any reason). */
  readonly exited: Promise<void>;
  /** Calls `listener` with everything the process writes to stdout and stderr. */
  onOutput(listener: (text: string) => void): void;
}

/**
 * Spawns `binary` in a process group of its own, tracked for clean-up on exit and signals, with a
 * watchdog that kills the group if this test process dies without cleaning up (even by SIGKILL).
 */
export const spawnWatched = (
  binary: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; uid?: number; gid?: number } = {},
): WatchedProcess => {
  const child = spawn(binary, args, {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
  const untrack = trackProcess(child);
  const listeners: ((text: string) => void)[] = [];
  const emit = (chunk: Buffer | string) => {
    for (const listener of listeners) listener(chunk.toString());
  };
  child.stdout?.on("data", emit);
  child.stderr?.on("data", emit);
  child.once("error", (error) => emit(`spawn failed: ${error.message}\n`));
  const exited = new Promise<void>((resolve) => {
    child.once("close", () => {
      untrack();
      resolve();
    });
  });
  if (child.pid !== undefined) {
    const watchdog = spawn("sh", ["-c", WATCHDOG, String(child.pid)], {
      stdio: ["pipe", "ignore", "ignore"],
    });
    watchdog.unref();
    // Stopped by signal, not by closing its stdin, so it never acts on a process group id that the
    // system may already have handed to someone else.
    void exited.then(() => watchdog.kill("SIGKILL"));
  }
  return { child, exited, onOutput: (listener) => listeners.push(listener) };
};
