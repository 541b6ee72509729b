import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { redisCommand } from "../src/redis.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const children = new Set<ChildProcess>();
const scratch: string[] = [];

afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

interface Started {
  redisPort: number;
  redisPid: number;
  redisRunId: string;
  s3Endpoint: string;
  s3Direct: string;
}

/** Runs test/fixtures/servers-child.ts with its own TMPDIR; resolves once its servers are up. */
const startChild = (mode: "wait" | "exit") => {
  const tmp = mkdtempSync(join(tmpdir(), "mem-testkit-cleanup-"));
  scratch.push(tmp);
  const child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/servers-child.ts", mode], {
    cwd: packageDir,
    env: { ...process.env, TMPDIR: tmp },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const started = new Promise<Started>((resolve, reject) => {
    let line = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      line += chunk.toString();
      if (line.includes("\n")) resolve(JSON.parse(line.slice(0, line.indexOf("\n"))) as Started);
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`child ended (${code ?? signal}) early:\n${output}`)),
    );
  });
  return { child, tmp, started, exited };
};

/** The servers' directories in `tmp` (tsx keeps its cache there too). */
const serverDirectories = (tmp: string): string[] =>
  readdirSync(tmp)
    .filter((name) => name.startsWith("mem-"))
    .sort();

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Polls `check` until it holds or `timeoutMs` passes; returns its last answer. */
const eventually = async (check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const refuses = async (probe: () => Promise<unknown>): Promise<boolean> => {
  try {
    await probe();
    return false;
  } catch {
    return true;
  }
};

const expectEverythingGone = async (tmp: string, started: Started) => {
  expect(serverDirectories(tmp)).toEqual([]);
  expect(await eventually(() => !isRunning(started.redisPid))).toBe(true);
  // Its port may be free or already taken by a server another suite started since: either way, the
  // server there (if any) is not the one the child started.
  expect(started.redisRunId).toMatch(/^[0-9a-f]{40}$/);
  const stillThere = async () => {
    try {
      return String(await redisCommand(started.redisPort, ["INFO", "server"], 500)).includes(
        started.redisRunId,
      );
    } catch {
      return false;
    }
  };
  expect(await eventually(async () => !(await stillThere()))).toBe(true);
  expect(await refuses(() => fetch(started.s3Endpoint))).toBe(true);
  expect(await refuses(() => fetch(started.s3Direct))).toBe(true);
};

// Each test has its own child, TMPDIR and servers on free ports, so they run side by side: most of their
// time is the child starting (tsx compiles into its empty TMPDIR) and its servers coming up.
describe.concurrent("a test process that ends without stopping its servers", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`kills the servers and removes their directories on ${signal}`, async () => {
      const { child, tmp, started, exited } = startChild("wait");
      const servers = await started;
      expect(serverDirectories(tmp)).toEqual([
        expect.stringMatching(/^mem-redis-/),
        expect.stringMatching(/^mem-s3rver-/),
      ]);
      expect(await redisCommand(servers.redisPort, ["PING"])).toBe("PONG");
      child.kill(signal);
      // The signal is raised again once the servers are gone, so the process still ends by it.
      expect(await exited).toEqual({ code: null, signal });
      await expectEverythingGone(tmp, servers);
    });
  }

  it("kills the servers and removes their directories when it exits", async () => {
    const { tmp, started, exited } = startChild("exit");
    const servers = await started;
    expect(await exited).toEqual({ code: 0, signal: null });
    await expectEverythingGone(tmp, servers);
  });
});
