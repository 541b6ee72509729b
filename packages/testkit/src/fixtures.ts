/**
 * Child processes that run a package's `test/fixtures/*.ts` scripts from the TypeScript sources: for
 * tests of several processes on one store, and of a process killed mid-write.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { join } from "node:path";
import { sleep } from "./process-tools.js";

const running = new Set<ChildProcess>();

/** Starts `{packageDir}/test/fixtures/{script}` in a fresh Node.js process running the TypeScript sources. */
export const startFixture = (
  packageDir: string,
  script: string,
  args: string[],
  stdin: "ignore" | "pipe" = "pipe",
): ChildProcess => {
  const child = spawn(
    process.execPath,
    ["--conditions=@mem/source", "--import", "tsx", join(packageDir, "test", "fixtures", script), ...args],
    { cwd: packageDir, stdio: [stdin, "pipe", "pipe"] },
  );
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
};

/** Kills every fixture process still running (call it from `afterAll`). */
export const stopFixtures = (): void => {
  for (const child of running) child.kill("SIGKILL");
};

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Resolves when the child has exited, with whatever it wrote to stderr. */
export const exitOf = (child: ChildProcess): Promise<Exit> =>
  new Promise((resolve) => {
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode, stderr });
      return;
    }
    child.once("exit", (code, signal) => resolve({ code, signal, stderr }));
  });

/** Resolves once the child prints `line` on stdout; rejects if it exits first. */
export const waitForLine = (child: ChildProcess, line: string): Promise<void> =>
  new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.split("\n").includes(line)) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before "${line}": ${err}`)));
  });

/**
 * Kills the child with SIGKILL at a random moment up to `withinMs` after it prints `ready`, so that it
 * dies mid-write; resolves with its exit.
 */
export const killOnceReady = async (child: ChildProcess, withinMs: number): Promise<Exit> => {
  const exited = exitOf(child);
  await waitForLine(child, "ready");
  await sleep(randomInt(0, withinMs));
  child.kill("SIGKILL");
  return exited;
};

/** Everything the child prints on stdout until it exits; rejects on a non-zero exit. */
export const outputOf = (child: ChildProcess): Promise<string> =>
  new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  });
