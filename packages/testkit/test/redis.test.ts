import { afterAll, describe, expect, it } from "vitest";
import {
  type RedisCluster,
  type RedisServer,
  redisCommand,
  startRedis,
  startRedisCluster,
} from "../src/redis.js";

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const serverPid = async (port: number): Promise<number> => {
  const info = await redisCommand(port, ["INFO", "server"]);
  const match = /process_id:(\d+)/.exec(String(info));
  if (!match?.[1]) throw new Error("no process_id in INFO");
  return Number(match[1]);
};

describe("startRedis", () => {
  const started: RedisServer[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  it("starts a loopback server that answers PING and does not persist", async () => {
    const server = await startRedis();
    started.push(server);
    expect(server.host).toBe("127.0.0.1");
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(await redisCommand(server.port, ["PING"])).toBe("PONG");
    expect(await redisCommand(server.port, ["CONFIG", "GET", "save"])).toEqual(["save", ""]);
    expect(await redisCommand(server.port, ["CONFIG", "GET", "appendonly"])).toEqual(["appendonly", "no"]);
  });

  it("kills and starts again on the same port, losing the data", async () => {
    const server = await startRedis();
    started.push(server);
    expect(await redisCommand(server.port, ["SET", "k", "v"])).toBe("OK");
    const pid = await serverPid(server.port);
    await server.kill();
    expect(isRunning(pid)).toBe(false);
    await expect(redisCommand(server.port, ["PING"])).rejects.toThrow();
    await server.start();
    expect(await redisCommand(server.port, ["PING"])).toBe("PONG");
    expect(await redisCommand(server.port, ["GET", "k"])).toBeNull();
    await server.restart();
    expect(await redisCommand(server.port, ["PING"])).toBe("PONG");
  });

  it("stop() kills the process and frees the port", async () => {
    const server = await startRedis();
    started.push(server);
    const pid = await serverPid(server.port);
    await server.stop();
    await server.stop();
    expect(isRunning(pid)).toBe(false);
    await expect(redisCommand(server.port, ["PING"])).rejects.toThrow();
    await expect(server.start()).rejects.toThrow(/stopped/);
  });

  it("fails loudly when redis-server is missing", async () => {
    await expect(startRedis({ serverBinary: "/nonexistent/redis-server" })).rejects.toThrow(
      /REDIS TESTS CANNOT RUN/,
    );
    await expect(startRedisCluster({ cliBinary: "/nonexistent/redis-cli" })).rejects.toThrow(
      /REDIS TESTS CANNOT RUN/,
    );
  });

  it("reports a server that cannot start", async () => {
    await expect(startRedis({ args: ["--no-such-option", "x"], startTimeoutMs: 3_000 })).rejects.toThrow(
      /could not start redis-server/,
    );
  });
});

describe("startRedisCluster", () => {
  let cluster: RedisCluster | undefined;
  afterAll(async () => {
    await cluster?.stop();
  });

  it("creates a healthy 3-master cluster covering every slot", async () => {
    cluster = await startRedisCluster({ masters: 3 });
    expect(cluster.nodes).toHaveLength(3);
    expect(cluster.startupNodes.map((node) => node.port)).toEqual(cluster.nodes.map((node) => node.port));
    for (const node of cluster.nodes) {
      const info = String(await redisCommand(node.port, ["CLUSTER", "INFO"]));
      expect(info).toContain("cluster_state:ok");
      expect(info).toContain("cluster_slots_assigned:16384");
      expect(info).toContain("cluster_size:3");
    }
    // Keys land on different nodes: a key is served by exactly one of them.
    const replies = await Promise.all(
      cluster.nodes.map((node) => redisCommand(node.port, ["SET", "some-key", "v"]).catch((e: Error) => e)),
    );
    expect(replies.filter((reply) => reply === "OK")).toHaveLength(1);
    expect(replies.filter((reply) => reply instanceof Error && /MOVED/.test(reply.message))).toHaveLength(2);
  });

  it("refuses fewer than 3 masters", async () => {
    await expect(startRedisCluster({ masters: 2 })).rejects.toThrow(/at least 3/);
  });

  it("stop() kills every node", async () => {
    const own = await startRedisCluster({ masters: 3 });
    let pids: number[] = [];
    try {
      pids = await Promise.all(own.nodes.map((node) => serverPid(node.port)));
    } finally {
      await own.stop();
    }
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
  });
});
