/**
 * What must not outlive the test process: server processes and their temporary directories. Everything
 * here runs synchronously, because on a signal the process is gone right after the handlers return
 * and no promise would ever settle.
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";

const processes = new Set<ChildProcess>();
const directories = new Set<string>();

/** Kills `child`'s whole process group (it must have been spawned `detached`). */
export const killGroup = (child: ChildProcess): void => {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // already gone
  }
};

/** Removes a directory tree now; a directory that is already gone is fine. */
export const removeDirectory = (directory: string): void => {
  try {
    rmSync(directory, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // Best effort: this also runs while the process is exiting, where nothing could report it.
  }
};

/** Kills every tracked server and removes every tracked directory. Safe to call more than once. */
export const cleanUpNow = (): void => {
  for (const child of processes) killGroup(child);
  processes.clear();
  for (const directory of directories) removeDirectory(directory);
  directories.clear();
};

let registered = false;
const register = (): void => {
  if (registered) return;
  registered = true;
  process.on("exit", cleanUpNow);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      cleanUpNow();
      // With no other handler left, re-raising ends the process as the signal would have. Another
      // handler decides for itself; raising again would only call it a second time.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
};

/** Kills `child`'s process group when the process exits or is signalled, unless released first. */
export const trackProcess = (child: ChildProcess): (() => void) => {
  register();
  processes.add(child);
  return () => processes.delete(child);
};

/** Removes `directory` when the process exits or is signalled, unless released first. */
export const trackDirectory = (directory: string): (() => void) => {
  register();
  directories.add(directory);
  return () => directories.delete(directory);
};
