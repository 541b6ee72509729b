/**
 * Other JavaScript runtimes for tests: Deno and Bun, from the `deno` and `bun` npm packages (their
 * binaries ship inside them; nothing is downloaded at run time). A test runs a script of its package in
 * one of them on the TypeScript sources (the `@mem/source` condition), and the script plays suites with
 * `plainRunner`, which needs no test framework.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export type Runtime = "deno" | "bun";

export const RUNTIMES: readonly Runtime[] = ["deno", "bun"];

const require = createRequire(import.meta.url);

/** The runtime's binary inside its npm package. */
export const runtimeBinary = (runtime: Runtime): string => {
  const root = dirname(require.resolve(`${runtime}/package.json`));
  return runtime === "bun" ? join(root, "bin", "bun.exe") : join(root, "deno");
};

/** The command line running a TypeScript file on the sources: Deno maps `.js` imports to `.ts` files. */
const argsFor = (runtime: Runtime, script: string, args: readonly string[]): string[] =>
  runtime === "deno"
    ? ["run", "--allow-all", "--sloppy-imports", "--conditions=@mem/source", "--no-lock", script, ...args]
    : ["--conditions=@mem/source", script, ...args];

/** Runs `script` in `runtime` to its end (at most `timeoutMs`), with its exit code and output. */
export function runInRuntime(
  runtime: Runtime,
  script: string,
  args: readonly string[] = [],
  timeoutMs = 240_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(runtimeBinary(runtime), argsFor(runtime, script, args), {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The outcome of the tests a `plainRunner` ran. */
export interface PlainReport {
  readonly passed: string[];
  readonly failed: { name: string; message: string }[];
}

/**
 * `describe` and `it` without a test framework, for `runConformance`'s runner options in a runtime
 * vitest does not run in: `describe` runs its body at once, `it` queues the test, `run()` plays the
 * queue one test after another and reports each by its full name; `names()` lists the queue.
 */
export function plainRunner(): {
  describe: (name: string, body: () => void) => void;
  it: (name: string, body: () => Promise<void> | void, timeout?: number) => void;
  run: () => Promise<PlainReport>;
  names: () => string[];
} {
  const prefix: string[] = [];
  const queue: { name: string; body: () => Promise<void> | void }[] = [];
  return {
    describe(name, body) {
      prefix.push(name);
      try {
        body();
      } finally {
        prefix.pop();
      }
    },
    it(name, body) {
      queue.push({ name: [...prefix, name].join(" > "), body });
    },
    names: () => queue.map((test) => test.name),
    async run() {
      const report: PlainReport = { passed: [], failed: [] };
      for (const test of queue) {
        try {
          await test.body();
          report.passed.push(test.name);
        } catch (error) {
          report.failed.push({
            name: test.name,
            message: error instanceof Error ? error.message : String(error),
          });
        }
      }
      return report;
    },
  };
}

/**
 * Runs a script that plays suites with `plainRunner` and prints its report as JSON on its last line, and
 * returns the report (or throws with the script's output when it printed none).
 */
export async function runSuitesInRuntime(
  runtime: Runtime,
  script: string,
  timeoutMs?: number,
): Promise<PlainReport> {
  const { code, stdout, stderr } = await runInRuntime(runtime, script, [], timeoutMs);
  const last = stdout.trimEnd().split("\n").pop() ?? "";
  try {
    const report = JSON.parse(last) as PlainReport;
    if (code === 0 && Array.isArray(report.passed) && Array.isArray(report.failed)) return report;
  } catch {
    // reported below with the output
  }
  throw new Error(
    `${runtime} ${script} exited with ${code}:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`,
  );
}
