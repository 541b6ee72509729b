/**
 * Real `redis-server` processes for tests: a single server or a Redis Cluster, on free loopback ports,
 * in throw-away directories, never persisted, and always killed when the test process ends.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killGroup, removeDirectory, trackDirectory, trackProcess } from "./cleanup.js";
import { freePort } from "./ports.js";
import {
  findOnPath,
  HOST,
  portIsFree,
  type ServerProcess,
  waitFor,
  watchProcessGroup,
} from "./process-tools.js";

const CLUSTER_BUS_OFFSET = 10_000;

export interface StartRedisOptions {
  /** The `redis-server` binary; default: the one on PATH. */
  serverBinary?: string;
  /** Extra `redis-server` arguments, e.g. `["--maxmemory", "10mb"]`. */
  args?: string[];
  /** Milliseconds to wait for the server to answer PING; default 15 000. */
  startTimeoutMs?: number;
}

/** One running `redis-server` (no persistence: `kill()` loses the data). */
export interface RedisServer extends ServerProcess {
  /** `redis://127.0.0.1:{port}` */
  readonly url: string;
  /**
   * Stalls the server with SIGSTOP: connections stay open and new ones are accepted by the kernel, but
   * nothing is answered until `resume()`. Simulates a server that hangs or a network that black-holes.
   */
  pause(): void;
  /** Lets a paused server run again (SIGCONT); what it received meanwhile is then processed. */
  resume(): void;
}

export interface RedisCluster {
  readonly nodes: ReadonlyArray<RedisServer>;
  /** Seed nodes for a cluster client: `[{ host, port }, ...]`. */
  readonly startupNodes: ReadonlyArray<{ host: string; port: number }>;
  /** Stops every node. */
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------
// Every server runs in its own process group; cleanup.ts kills the groups still running and removes
// their directories when the test process exits or is signalled, and a watchdog (process-tools.ts) kills
// it when the test process is SIGKILLed.

const missingBinary = (binary: string): Error =>
  new Error(
    `REDIS TESTS CANNOT RUN: \`${binary}\` was not found or is not executable. ` +
      "Install Redis (Debian/Ubuntu: `apt-get install -y redis-server`, macOS: `brew install redis`) " +
      "or run `node scripts/ensure-servers.mjs`.",
  );

// ---------------------------------------------------------------------------------------------------
// A minimal RESP client, enough for PING and CLUSTER INFO without depending on a Redis library.

type Reply = string | number | null | Error | Reply[];

const parseReply = (buf: Buffer, at: number): { value: Reply; next: number } | undefined => {
  const eol = buf.indexOf("\r\n", at);
  if (eol < 0) return undefined;
  const type = String.fromCharCode(buf[at] ?? 0);
  const line = buf.toString("utf8", at + 1, eol);
  const next = eol + 2;
  switch (type) {
    case "+":
      return { value: line, next };
    case "-":
      return { value: new Error(line), next };
    case ":":
      return { value: Number(line), next };
    case "$": {
      const length = Number(line);
      if (length < 0) return { value: null, next };
      if (buf.length < next + length + 2) return undefined;
      return { value: buf.toString("utf8", next, next + length), next: next + length + 2 };
    }
    case "*": {
      const count = Number(line);
      if (count < 0) return { value: null, next };
      const items: Reply[] = [];
      let pos = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buf, pos);
        if (!item) return undefined;
        items.push(item.value);
        pos = item.next;
      }
      return { value: items, next: pos };
    }
    default:
      throw new Error(`unexpected RESP reply type ${JSON.stringify(type)}`);
  }
};

/** Sends one command to `host:port` on a fresh connection and resolves with its reply. */
export const redisCommand = (port: number, args: string[], timeoutMs = 2_000, host = HOST): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis at ${host}:${port} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (error: Error | undefined, value?: Reply) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value ?? null);
    };
    socket.once("error", (error) => finish(error));
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      try {
        const reply = parseReply(buf, 0);
        if (reply) finish(undefined, reply.value);
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.once("connect", () => {
      const parts = [`*${args.length}\r\n`];
      for (const arg of args) parts.push(`$${Buffer.byteLength(arg)}\r\n${arg}\r\n`);
      socket.write(parts.join(""));
    });
  });

// ---------------------------------------------------------------------------------------------------

interface ServerConfig {
  binary: string;
  port: number;
  dir: string;
  args: string[];
  startTimeoutMs: number;
}

const createServerHandle = (config: ServerConfig): RedisServer => {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = "";
  let stopped = false;
  const releaseDirectory = trackDirectory(config.dir);

  const kill = async (): Promise<void> => {
    const current = child;
    if (!current) return;
    killGroup(current);
    await exited;
    child = undefined;
    // The port is released when the kernel reaps the server, which may trail the shell's exit.
    await waitFor(`port ${config.port} to be released`, 10_000, () => portIsFree(config.port));
  };

  const signal = (name: "SIGSTOP" | "SIGCONT"): void => {
    const pid = child?.pid;
    if (pid === undefined) throw new Error(`redis-server on port ${config.port} is not running`);
    process.kill(pid, name);
  };

  const start = async (): Promise<void> => {
    if (stopped) throw new Error("this redis server was stopped; start a new one");
    if (child) throw new Error(`redis-server on port ${config.port} is already running`);
    output = "";
    const serverArgs = [
      "--port",
      String(config.port),
      "--bind",
      HOST,
      "--dir",
      config.dir,
      "--save",
      "",
      "--appendonly",
      "no",
      "--daemonize",
      "no",
      "--logfile",
      "",
      ...config.args,
    ];
    const spawned = spawn(config.binary, serverArgs, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    child = spawned;
    const untrack = trackProcess(spawned);
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-4_000);
    };
    spawned.stdout?.on("data", collect);
    spawned.stderr?.on("data", collect);
    spawned.once("error", (error) => collect(Buffer.from(`spawn failed: ${error.message}\n`)));
    let exitedEarly = false;
    exited = new Promise((resolve) => {
      spawned.once("close", () => {
        exitedEarly = true;
        untrack();
        resolve();
      });
    });
    watchProcessGroup(spawned, exited);
    try {
      await waitFor(`redis-server on port ${config.port} to answer PING`, config.startTimeoutMs, async () => {
        if (exitedEarly) throw new Error("redis-server exited");
        return (await redisCommand(config.port, ["PING"], 1_000)) === "PONG";
      });
    } catch (error) {
      await kill();
      throw new Error(
        `could not start redis-server on port ${config.port}: ${(error as Error).message}\n${output}`,
      );
    }
  };

  return {
    host: HOST,
    port: config.port,
    url: `redis://${HOST}:${config.port}`,
    kill,
    start,
    restart: async () => {
      await kill();
      await start();
    },
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    stop: async () => {
      if (stopped) return;
      await kill();
      stopped = true;
      removeDirectory(config.dir);
      releaseDirectory();
    },
  };
};

const resolveBinary = (binary: string): string => {
  const found = findOnPath(binary);
  if (!found) throw missingBinary(binary);
  return found;
};

/**
 * Starts a throw-away `redis-server` on a free loopback port and waits until it answers PING.
 * Throws a loud error when `redis-server` is not installed.
 *
 * @example
 * ```ts
 * const redis = await startRedis();
 * const client = new Redis(redis.url);
 * // ...
 * await redis.stop();
 * ```
 */
export const startRedis = async (options: StartRedisOptions = {}): Promise<RedisServer> => {
  const binary = resolveBinary(options.serverBinary ?? "redis-server");
  // Another process may bind the port between our check and the server's own bind: try a new one.
  for (let attempt = 1; ; attempt++) {
    const handle = createServerHandle({
      binary,
      port: await freePort(),
      dir: mkdtempSync(join(tmpdir(), "mem-redis-")),
      args: options.args ?? [],
      startTimeoutMs: options.startTimeoutMs ?? 15_000,
    });
    try {
      await handle.start();
      return handle;
    } catch (error) {
      await handle.stop();
      if (attempt >= 3 || !/address already in use/i.test((error as Error).message)) throw error;
    }
  }
};

export interface StartRedisClusterOptions extends StartRedisOptions {
  /** Number of master nodes; at least 3 (Redis Cluster's minimum). Default 3. */
  masters?: number;
  /** The `redis-cli` binary used to create the cluster; default: the one on PATH. */
  cliBinary?: string;
}

// A cluster node needs its port and the cluster bus port (port + 10000) free.
const freeClusterPort = async (taken: Set<number>): Promise<number> => {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = await freePort();
    const bus = port + CLUSTER_BUS_OFFSET;
    if (bus > 65_535 || taken.has(port) || taken.has(bus)) continue;
    if (!(await portIsFree(bus))) continue;
    taken.add(port);
    taken.add(bus);
    return port;
  }
  throw new Error("could not find a free port pair for a cluster node");
};

const run = (file: string, args: string[], timeoutMs: number): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(" ")} failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });

/**
 * Starts a Redis Cluster of `masters` nodes (no replicas) on free loopback ports, assigns all slots
 * with `redis-cli --cluster create`, and waits until every node reports `cluster_state:ok`.
 *
 * @example
 * ```ts
 * const cluster = await startRedisCluster({ masters: 3 });
 * const client = new Cluster([...cluster.startupNodes]);
 * // ...
 * await cluster.stop();
 * ```
 */
export const startRedisCluster = async (options: StartRedisClusterOptions = {}): Promise<RedisCluster> => {
  const masters = options.masters ?? 3;
  if (masters < 3) throw new Error("a Redis Cluster needs at least 3 masters");
  const binary = resolveBinary(options.serverBinary ?? "redis-server");
  const cli = resolveBinary(options.cliBinary ?? "redis-cli");
  const taken = new Set<number>();
  const nodes: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  try {
    for (let i = 0; i < masters; i++) {
      const dir = mkdtempSync(join(tmpdir(), "mem-redis-cluster-"));
      const node = createServerHandle({
        binary,
        port: await freeClusterPort(taken),
        dir,
        args: [
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          join(dir, "nodes.conf"),
          "--cluster-node-timeout",
          "5000",
          ...(options.args ?? []),
        ],
        startTimeoutMs: options.startTimeoutMs ?? 15_000,
      });
      nodes.push(node);
      await node.start();
    }
    await run(
      cli,
      [
        "--cluster",
        "create",
        ...nodes.map((node) => `${HOST}:${node.port}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes",
      ],
      60_000,
    );
    await waitFor("the cluster to report cluster_state:ok on every node", 60_000, async () => {
      for (const node of nodes) {
        const info = await redisCommand(node.port, ["CLUSTER", "INFO"]);
        if (typeof info !== "string") return false;
        if (!info.includes("cluster_state:ok")) return false;
        if (!info.includes(`cluster_known_nodes:${masters}\r\n`)) return false;
        if (!info.includes("cluster_slots_ok:16384")) return false;
      }
      return true;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes,
    startupNodes: nodes.map((node) => ({ host: node.host, port: node.port })),
    stop,
  };
};
