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

/** Runs `binary` with `args` to its end (killed after `timeoutMs`), with its exit code and output. */
function spawnCapture(
  binary: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", ...options.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
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

/** Runs `script` in `runtime` to its end (at most `timeoutMs`), with its exit code and output. */
export function runInRuntime(
  runtime: Runtime,
  script: string,
  args: readonly string[] = [],
  timeoutMs = 240_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return spawnCapture(runtimeBinary(runtime), argsFor(runtime, script, args), { timeoutMs });
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

/** What a vitest run in another runtime reported: each test by file and full name, and its outcome. */
export interface VitestReport {
  readonly passed: string[];
  readonly failed: { name: string; message: string }[];
  /** Tests the run registered and did not run (skipped, todo), and files that failed to load. */
  readonly notRun: string[];
}

const vitestEntry = (packageDir: string): string => {
  const from = createRequire(join(packageDir, "package.json"));
  return join(dirname(from.resolve("vitest/package.json")), "vitest.mjs");
};

/**
 * Runs vitest itself in `runtime` (Bun with `--bun`, so its forks are Bun too; Deno with its Node
 * compatibility) on the package's test files, `exclude` left out, with the JSON report written to a
 * file of its own (the package's `.vitest-report.json` stays Node's). `MEM_TEST_RUNTIME` names the
 * runtime to the tests. Throws with the output when the run wrote no report.
 */
export async function runVitestInRuntime(
  runtime: Runtime,
  packageDir: string,
  options: { exclude?: readonly string[]; timeoutMs?: number } = {},
): Promise<VitestReport> {
  const { mkdtemp, readFile, rm } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const dir = await mkdtemp(join(tmpdir(), `mem-vitest-${runtime}-`));
  const output = join(dir, "report.json");
  const args = [
    vitestEntry(packageDir),
    "run",
    "--root",
    packageDir,
    ...(options.exclude ?? []).flatMap((pattern) => ["--exclude", pattern]),
  ];
  const command = runtime === "bun" ? ["--bun", ...args] : ["run", "--allow-all", "--no-lock", ...args];
  try {
    const { code, stdout, stderr } = await spawnCapture(runtimeBinary(runtime), command, {
      cwd: packageDir,
      env: { MEM_TEST_RUNTIME: runtime, MEM_VITEST_REPORT: output },
      timeoutMs: options.timeoutMs ?? 480_000,
    });
    let json: {
      testResults: {
        name: string;
        status: string;
        message?: string;
        assertionResults: {
          ancestorTitles: string[];
          title: string;
          status: string;
          failureMessages?: string[];
        }[];
      }[];
    };
    try {
      json = JSON.parse(await readFile(output, "utf8"));
    } catch {
      throw new Error(
        `${runtime}: vitest exited with ${code} and no report:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`,
      );
    }
    const report: VitestReport = { passed: [], failed: [], notRun: [] };
    for (const file of json.testResults) {
      const name = file.name.slice(packageDir.length + 1);
      if (file.assertionResults.length === 0)
        report.notRun.push(`${name}: ${file.status} ${file.message ?? ""}`);
      for (const test of file.assertionResults) {
        const full = [name, ...test.ancestorTitles, test.title].join(" > ");
        if (test.status === "passed") report.passed.push(full);
        else if (test.status === "failed") {
          report.failed.push({ name: full, message: (test.failureMessages ?? []).join("\n").slice(0, 2000) });
        } else report.notRun.push(`${full}: ${test.status}`);
      }
    }
    if (code !== 0 && report.failed.length === 0) {
      report.failed.push({ name: "(run)", message: `exited with ${code}: ${stderr.slice(-2000)}` });
    }
    return report;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The full names of the tests vitest registers for the package under Node, as `runVitestInRuntime` names them. */
export async function vitestTestNames(
  packageDir: string,
  exclude: readonly string[] = [],
): Promise<string[]> {
  const { execFile } = await import("node:child_process");
  const args = [
    vitestEntry(packageDir),
    "list",
    "--json",
    "--root",
    packageDir,
    ...exclude.flatMap((pattern) => ["--exclude", pattern]),
  ];
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, args, { cwd: packageDir, maxBuffer: 64 * 1024 * 1024 }, (error, out) =>
      error ? reject(error) : resolve(out),
    ),
  );
  const listed = JSON.parse(stdout) as { name: string; file: string }[];
  return listed.map((test) => `${test.file.slice(packageDir.length + 1)} > ${test.name}`);
}
