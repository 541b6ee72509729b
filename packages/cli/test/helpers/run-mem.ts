/**
 * Runs the real `mem` command as a child process, the way a user's shell would: the published entry point
 * (bin/mem.js over the built dist/ of this package and of the stores), which starts in about half the
 * time tsx needs to compile the sources. test/fixtures/built.ts refuses to run the tests over a stale
 * build.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
const BIN = fileURLToPath(new URL("../../bin/mem.js", import.meta.url));

export interface MemRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** stdout as UTF-8 */
  out: string;
}

export const runMem = (
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; input?: Uint8Array } = {},
): Promise<MemRun> =>
  new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      NO_COLOR: undefined,
      FORCE_COLOR: undefined,
    };
    Object.assign(env, options.env);
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: PACKAGE_DIR,
      env: Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      const stdout = Buffer.concat(out);
      resolve({ code, stdout, out: stdout.toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    });
    child.stdin.end(options.input ?? Buffer.alloc(0));
  });

/** The command line of the entry point, for running it under `script` (a terminal). */
export const memCommandLine = (args: readonly string[]): string[] => [process.execPath, BIN, ...args];

export { PACKAGE_DIR };
