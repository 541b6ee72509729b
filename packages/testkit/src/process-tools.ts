/**
 * What the server starters share: finding binaries, waiting for a condition, checking a port, and the
 * watchdog that kills a server's process group when the test process dies in any way.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import { trackProcess } from "./cleanup.js";

export const HOST = "127.0.0.1";

export const isExecutable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** `binary` itself when it holds a `/`, else the first executable of that name on PATH. */
export const findOnPath = (binary: string): string | undefined => {
  if (binary.includes("/")) return isExecutable(binary) ? binary : undefined;
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, binary);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 50 ms until it returns true; throws after `timeoutMs` with the last error. */
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

export const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });

// Kills process group $0 as soon as its stdin closes: the parent closes it when it stops the server, and
// the kernel closes it when the parent dies in any way (even SIGKILL), so no server outlives the tests.
const WATCHDOG = `while read -r _; do :; done; kill -9 -"$0" 2>/dev/null`;

/**
 * Starts the watchdog for `child` (spawned `detached`, so it leads its own process group). It is stopped
 * by signal once `exited` settles, not by closing its stdin, so it never acts on a process group id that
 * the system may already have handed to someone else.
 */
export const watchProcessGroup = (child: ChildProcess, exited: Promise<void>): void => {
  if (child.pid === undefined) return;
  const watchdog = spawn("sh", ["-c", WATCHDOG, String(child.pid)], { stdio: ["pipe", "ignore", "ignore"] });
  watchdog.unref();
  void exited.then(() => watchdog.kill("SIGKILL"));
};

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

/** A server a test started on loopback, which it can crash, start again and stop. */
export interface ServerProcess {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  /** Kills the server with SIGKILL (as a crash would) and waits until its port is free. */
  kill(): Promise<void>;
  /** Starts the server again on the same port (after `kill()`) and waits until it answers. */
  start(): Promise<void>;
  /** `kill()` then `start()`. */
  restart(): Promise<void>;
  /** Shuts the server down and removes its directory. Safe to call more than once. */
  stop(): Promise<void>;
}
