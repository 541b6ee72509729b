/**
 * A real PostgreSQL server for tests: `initdb` and `postgres` from Debian's `postgresql` package (or any
 * installation on PATH), on a free loopback port, in a throw-away data directory, always stopped when
 * the test process ends. PostgreSQL refuses to run as root, so as root the server runs as the
 * `postgres` system user that the package creates.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killGroup, removeDirectory, trackDirectory, trackProcess } from "./cleanup.js";
import { freePort } from "./ports.js";
import {
  findOnPath,
  HOST,
  isExecutable,
  portIsFree,
  type ServerProcess,
  sleep,
  waitFor,
  watchProcessGroup,
} from "./process-tools.js";

export interface StartPostgresOptions {
  /** The directory holding `initdb` and `postgres`; default: the newest `/usr/lib/postgresql/<ver>/bin`, else PATH. */
  binDir?: string;
  /**
   * Server settings on top of the test defaults (`fsync=off`, loopback only,
   * no Unix socket), e.g. `{ default_transaction_read_only: "on" }`.
   */
  settings?: Record<string, string>;
  /** Milliseconds to wait for the server to accept connections; default 30 000. */
  startTimeoutMs?: number;
}

/**
 * One running PostgreSQL server with a superuser `postgres` whose password is random. Its data
 * survives `kill()`, and `start()` runs crash recovery.
 */
export interface PostgresServer extends ServerProcess {
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** `postgres://postgres:{password}@127.0.0.1:{port}/postgres` */
  readonly url: string;
}

const READY = "database system is ready to accept connections";

const missing = (what: string): Error =>
  new Error(
    `POSTGRES TESTS CANNOT RUN: ${what}. Install PostgreSQL ` +
      "(Debian/Ubuntu: `apt-get install -y --no-install-recommends postgresql`, macOS: `brew install postgresql`) " +
      "or run `node scripts/ensure-servers.mjs` as root.",
  );

const versionOf = (name: string): number => Number.parseFloat(name) || 0;

/** The directory with `initdb` and `postgres`: Debian keeps them off PATH, under /usr/lib/postgresql. */
export const findPostgresBinDir = (): string | undefined => {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => versionOf(b) - versionOf(a));
    for (const version of versions) {
      const dir = join(root, version, "bin");
      if (isExecutable(join(dir, "initdb")) && isExecutable(join(dir, "postgres"))) return dir;
    }
  }
  const initdb = findOnPath("initdb");
  const postgres = findOnPath("postgres");
  if (
    initdb &&
    postgres &&
    initdb.slice(0, initdb.lastIndexOf("/")) === postgres.slice(0, postgres.lastIndexOf("/"))
  ) {
    return initdb.slice(0, initdb.lastIndexOf("/"));
  }
  return undefined;
};

/** As root, the uid and gid of the `postgres` system user; `undefined` when not root. */
const serverIdentity = (): { uid: number; gid: number } | undefined => {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"));
  const fields = line?.split(":");
  const uid = Number(fields?.[2]);
  const gid = Number(fields?.[3]);
  if (!fields || !Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0) {
    throw missing(
      "running as root, but there is no unprivileged `postgres` system user to run the server as",
    );
  }
  return { uid, gid };
};

/**
 * Starts a throw-away PostgreSQL server on a free loopback port and waits until it accepts connections.
 * Throws an error starting with `POSTGRES TESTS CANNOT RUN` when PostgreSQL is not installed.
 *
 * @example
 * ```ts
 * const server = await startPostgres();
 * const pool = new pg.Pool({ connectionString: server.url });
 * // ...
 * await pool.end();
 * await server.stop();
 * ```
 */
export const startPostgres = async (options: StartPostgresOptions = {}): Promise<PostgresServer> => {
  const binDir = options.binDir ?? findPostgresBinDir();
  if (!binDir || !isExecutable(join(binDir, "initdb")) || !isExecutable(join(binDir, "postgres"))) {
    throw missing("`initdb` and `postgres` were not found (looked in /usr/lib/postgresql/*/bin and on PATH)");
  }
  const identity = serverIdentity();
  const dir = mkdtempSync(join(tmpdir(), "mem-postgres-"));
  const releaseDirectory = trackDirectory(dir);
  const dataDir = join(dir, "data");
  const password = randomBytes(12).toString("hex");
  const spawnOptions = { cwd: dir, ...(identity ?? {}) };
  try {
    mkdirSync(dataDir, { mode: 0o700 });
    const pwfile = join(dir, "pwfile");
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (identity) for (const path of [dir, dataDir, pwfile]) chownSync(path, identity.uid, identity.gid);
    execFileSync(
      join(binDir, "initdb"),
      [
        "-D",
        dataDir,
        "-U",
        "postgres",
        `--pwfile=${pwfile}`,
        "--auth-host=scram-sha-256",
        "--auth-local=trust",
        "--encoding=UTF8",
        "--locale=C",
        "--no-sync",
      ],
      { ...spawnOptions, stdio: "pipe", timeout: 120_000 },
    );
  } catch (error) {
    removeDirectory(dir);
    releaseDirectory();
    const output = (error as { stderr?: Buffer }).stderr?.toString("utf8") ?? "";
    throw new Error(`initdb failed: ${(error as Error).message}\n${output}`);
  }

  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: HOST,
    port: String(port),
    unix_socket_directories: "",
    // In the data directory, so that nothing is left in /dev/shm when the server is killed.
    dynamic_shared_memory_type: "mmap",
    // Nothing survives the test run, but a killed server must keep every commit it reported (kill()
    // and start() simulate a crash): so commits wait for the WAL write, which the OS keeps, not for fsync.
    fsync: "off",
    full_page_writes: "off",
    max_connections: "200",
    log_min_messages: "warning",
    ...options.settings,
  };
  const args = [
    "-D",
    dataDir,
    ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ];
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stopped = false;

  const kill = async (): Promise<void> => {
    const current = child;
    if (!current) return;
    killGroup(current);
    await exited;
    child = undefined;
    await waitFor(`port ${port} to be released`, 10_000, () => portIsFree(port));
  };

  const start = async (): Promise<void> => {
    if (stopped) throw new Error("this PostgreSQL server was stopped; start a new one");
    if (child) throw new Error(`PostgreSQL on port ${port} is already running`);
    let output = "";
    let ready = false;
    let exitedEarly = false;
    const spawned = spawn(join(binDir, "postgres"), args, {
      ...spawnOptions,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = spawned;
    const untrack = trackProcess(spawned);
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-8_000);
      if (output.includes(READY)) ready = true;
    };
    spawned.stdout?.on("data", collect);
    spawned.stderr?.on("data", collect);
    spawned.once("error", (error) => collect(Buffer.from(`spawn failed: ${error.message}\n`)));
    exited = new Promise((resolve) => {
      spawned.once("close", () => {
        exitedEarly = true;
        untrack();
        resolve();
      });
    });
    watchProcessGroup(spawned, exited);
    try {
      await waitFor(`PostgreSQL on port ${port} to accept connections`, startTimeoutMs, async () => {
        if (exitedEarly) throw new Error("postgres exited");
        return ready;
      });
      // Logged by the server itself, so it shows whatever level log_min_messages allows.
      spawned.stdout?.removeAllListeners("data");
      spawned.stderr?.removeAllListeners("data");
      spawned.stdout?.resume();
      spawned.stderr?.resume();
    } catch (error) {
      await kill();
      throw new Error(`could not start PostgreSQL on port ${port}: ${(error as Error).message}\n${output}`);
    }
  };

  /** A fast shutdown (SIGINT: abort transactions, then exit cleanly); SIGKILL if it takes too long. */
  const shutDown = async (): Promise<void> => {
    const current = child;
    if (!current || current.pid === undefined) return;
    try {
      process.kill(current.pid, "SIGINT");
    } catch {
      // already gone
    }
    const done = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!done) killGroup(current);
    await exited;
    child = undefined;
  };

  const handle: PostgresServer = {
    host: HOST,
    port,
    user: "postgres",
    password,
    database: "postgres",
    url: `postgres://postgres:${password}@${HOST}:${port}/postgres`,
    kill,
    start,
    restart: async () => {
      await kill();
      await start();
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await shutDown();
      removeDirectory(dir);
      releaseDirectory();
    },
  };
  try {
    await start();
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
};
