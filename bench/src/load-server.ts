/**
 * What the load benchmark reads from the servers: CPU seconds of the server processes, bytes on the
 * wire, and the space held on disk by in-process stores.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "ioredis";
import type pg from "pg";

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** utime + stime of a process in seconds; `null` when it is gone or /proc is not there. */
const cpuOfPid = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return null;
  }
};

/**
 * CPU seconds of the PostgreSQL server's backends and background processes (every pid of
 * pg_stat_activity, read from /proc: the server runs on this machine), kept per pid so that a backend
 * that exits still counts what it used while it was seen.
 */
export const postgresCpu = (pool: pg.Pool): (() => Promise<number>) => {
  const seen = new Map<number, number>();
  return async () => {
    const { rows } = await pool.query("SELECT pid FROM pg_stat_activity");
    for (const row of rows as { pid: number }[]) {
      const cpu = cpuOfPid(row.pid);
      if (cpu !== null) seen.set(row.pid, cpu);
    }
    let total = 0;
    for (const cpu of seen.values()) total += cpu;
    return total;
  };
};

const infoNumbers = async (node: Redis, section: string, names: string[]): Promise<number> => {
  const text = await node.info(section);
  let total = 0;
  for (const name of names) total += Number(new RegExp(`^${name}:([0-9.]+)`, "m").exec(text)?.[1] ?? 0);
  return total;
};

/** CPU seconds of the redis-server processes (INFO cpu: the server's own getrusage). */
export const cpuOfRedis = async (nodes: Redis[]): Promise<number> => {
  let total = 0;
  for (const node of nodes) total += await infoNumbers(node, "cpu", ["used_cpu_sys", "used_cpu_user"]);
  return total;
};

/** Bytes the redis-servers received and sent on client connections (INFO stats). */
export const wireOfRedis = async (nodes: Redis[]): Promise<number> => {
  let total = 0;
  for (const node of nodes)
    total += await infoNumbers(node, "stats", ["total_net_input_bytes", "total_net_output_bytes"]);
  return total;
};

/**
 * Bytes both ways on every connection a pool opens, from the sockets' own counters (TCP payload, what a
 * counting proxy would see). Attach before the pool connects.
 */
export const trackPgSockets = (pool: pg.Pool): (() => number) => {
  const sockets: { bytesRead: number; bytesWritten: number }[] = [];
  pool.on("connect", (client) => {
    const stream = (
      client as unknown as { connection?: { stream?: { bytesRead: number; bytesWritten: number } } }
    ).connection?.stream;
    if (stream) sockets.push(stream);
  });
  return () => sockets.reduce((sum, socket) => sum + socket.bytesRead + socket.bytesWritten, 0);
};

/** Allocated bytes (blocks) of everything beneath `root`, links not followed. */
export const diskBytes = (root: string): number => {
  let total = 0;
  const walk = (path: string) => {
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(path);
    } catch {
      return;
    }
    total += stats.blocks * 512;
    if (!stats.isDirectory()) return;
    for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(root);
  return total;
};
