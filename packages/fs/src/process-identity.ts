import { readFileSync } from "node:fs";
import { hostname } from "node:os";

/**
 * Who holds a lock: enough to tell, from another process on the same machine, whether the holder is
 * still running (pid plus the kernel's start time, so a recycled pid is not mistaken for the holder).
 */
export interface Owner {
  pid: number;
  host: string;
  /** Linux boot id, so a lock left before a reboot is recognised as dead. */
  boot: string | null;
  /** Process start time in clock ticks since boot (Linux), or null where unknown. */
  start: number | null;
  token: string;
  /** Wall-clock time of acquisition, for humans inspecting the file. */
  at: number;
}

const readText = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

/** The fields of /proc/{pid}/stat after the command name (field 2, which may hold spaces and parentheses). */
const statFields = (pid: number | "self"): string[] | null => {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === null) return null;
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
};

/** Field 22 of /proc/{pid}/stat: the start time in clock ticks since boot. */
export const startTimeOf = (pid: number | "self"): number | null => {
  const value = Number(statFields(pid)?.[19]);
  return Number.isSafeInteger(value) ? value : null;
};

/**
 * True when `pid` has exited but its parent has not reaped it yet (state `Z`, or `X` while it is being
 * reaped). Such a process still answers `kill(pid, 0)`, yet it runs no code and holds nothing.
 */
export const isZombie = (pid: number): boolean => {
  const state = statFields(pid)?.[0];
  return state === "Z" || state === "X";
};

export const BOOT_ID = readText("/proc/sys/kernel/random/boot_id")?.trim() || null;
export const HOST = hostname();
const OWN_START = startTimeOf("self");

export const ownerFor = (token: string): Owner => ({
  pid: process.pid,
  host: HOST,
  boot: BOOT_ID,
  start: OWN_START,
  token,
  at: Date.now(),
});

export const parseOwner = (text: string): Owner | null => {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null) return null;
    const o = value as Record<string, unknown>;
    if (typeof o["pid"] !== "number" || typeof o["host"] !== "string") return null;
    // Tokens name takeover markers, so only plain hex is accepted.
    if (typeof o["token"] !== "string" || !/^[0-9a-f]{16,64}$/.test(o["token"])) return null;
    return {
      pid: o["pid"],
      host: o["host"],
      boot: typeof o["boot"] === "string" ? o["boot"] : null,
      start: typeof o["start"] === "number" ? o["start"] : null,
      token: o["token"],
      at: typeof o["at"] === "number" ? o["at"] : 0,
    };
  } catch {
    return null;
  }
};

/**
 * True when `pid` names a running process on this machine (EPERM: running, owned by someone else). A
 * zombie (exited, not yet reaped by its parent) is not running.
 */
export const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return !isZombie(pid);
};

/** Whether the process that wrote `owner` on this machine is certainly gone; `null` when it cannot be told. */
export const ownerGone = (owner: Owner): boolean | null => {
  if (owner.host !== HOST) return null;
  if (owner.boot !== null && BOOT_ID !== null && owner.boot !== BOOT_ID) return true;
  if (!pidAlive(owner.pid)) return true;
  if (owner.start !== null) {
    const start = startTimeOf(owner.pid);
    if (start !== null && start !== owner.start) return true;
  }
  return false;
};
