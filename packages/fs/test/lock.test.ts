import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StoreFailureError } from "@mem/core";
import { FsStore } from "@mem/fs";
import { afterAll, describe, expect, it } from "vitest";
import { LOCK_NAME, LOCK_TEMP_PREFIX, MARKER_PREFIX, TEMP_PREFIX } from "../src/names.js";
import { BOOT_ID, HOST, startTimeOf } from "../src/process-identity.js";
import { outputOf, startFixture, waitForLine } from "./helpers/children.js";
import { bytes, tempDir, text } from "./helpers/files.js";

const sleepers: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const child of sleepers) child.kill("SIGKILL");
});

/** A live process that is not this one, to stand for another holder of the lock. */
const startSleeper = async () => {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)"], { stdio: "ignore" });
  sleepers.push(child);
  await new Promise((resolve) => child.once("spawn", resolve));
  return child;
};

/** The pid of a process that has exited. */
const deadPid = async (): Promise<number> => {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
};

const lockFor = (pid: number, overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    pid,
    host: HOST,
    boot: BOOT_ID,
    start: startTimeOf(pid),
    token: "0".repeat(32),
    at: 0,
    ...overrides,
  });

const fresh = (options: { lockTimeoutMs?: number; lockStaleMs?: number } = {}) => {
  const root = join(tempDir(), "memories");
  return { root, store: new FsStore({ root, ...options }) };
};

const timedOut = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StoreFailureError);
  expect((error as StoreFailureError).reason).toBe("timed out waiting for the store lock");
};

describe("the cross-process lock", () => {
  it("takes over a lock whose holder died, and cleans what the holder left behind", async () => {
    const { root, store } = fresh();
    const pid = await deadPid();
    mkdirSync(join(root, "a", "b"), { recursive: true });
    mkdirSync(join(root, "empty", "nested"), { recursive: true });
    writeFileSync(join(root, "a", "b", `${TEMP_PREFIX}0123456789abcdef`), "half a write");
    writeFileSync(join(root, "a", "keep.txt"), "kept");
    mkdirSync(join(root, "a", `${TEMP_PREFIX}half-deleted-dir`, "inner"), { recursive: true });
    writeFileSync(join(root, "a", `${TEMP_PREFIX}half-deleted-dir`, "inner", "rest.txt"), "rest");
    writeFileSync(join(root, `${LOCK_TEMP_PREFIX}${pid}.00aa`), "candidate");
    writeFileSync(join(root, LOCK_NAME), lockFor(pid, { start: 1 }));
    await store.write("/memories/new.txt", bytes("n"), { ifAbsent: true });
    expect(readdirSync(root).sort()).toEqual(["a", "new.txt"]);
    expect(readdirSync(join(root, "a"))).toEqual(["keep.txt"]);
  });

  it("waits for a live holder within the timeout, then fails; proceeds once the holder dies", async () => {
    const { root, store } = fresh({ lockTimeoutMs: 300 });
    const holder = await startSleeper();
    writeFileSync(join(root, LOCK_NAME), lockFor(holder.pid!));
    await timedOut(store.write("/memories/f", bytes("x"), { ifAbsent: true }));
    await timedOut(store.delete("/memories/f"));
    expect(existsSync(join(root, "f"))).toBe(false);
    // Reads never wait for the lock.
    expect(await store.list("/memories", 2)).toEqual({ size: 0, entries: [] });
    const gone = new Promise((resolve) => holder.once("exit", resolve));
    holder.kill("SIGKILL");
    await gone;
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(text((await store.read("/memories/f"))?.data)).toBe("x");
    expect(existsSync(join(root, LOCK_NAME))).toBe(false);
  });

  it("treats a live pid with another start time as a recycled pid, not the holder", async () => {
    const { root, store } = fresh({ lockTimeoutMs: 300 });
    const other = await startSleeper();
    writeFileSync(
      join(root, LOCK_NAME),
      lockFor(other.pid!, { start: (startTimeOf(other.pid!) ?? 0) + 12345 }),
    );
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(existsSync(join(root, LOCK_NAME))).toBe(false);
  });

  it("treats a lock from before a reboot as abandoned", async () => {
    const { root, store } = fresh({ lockTimeoutMs: 300 });
    const other = await startSleeper();
    writeFileSync(join(root, LOCK_NAME), lockFor(other.pid!, { boot: "another-boot" }));
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(existsSync(join(root, LOCK_NAME))).toBe(false);
  });

  it("treats a lock of this process that it does not hold as abandoned", async () => {
    const { root, store } = fresh({ lockTimeoutMs: 300 });
    writeFileSync(join(root, LOCK_NAME), lockFor(process.pid));
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(existsSync(join(root, LOCK_NAME))).toBe(false);
  });

  it("respects a lock from another host until it is older than lockStaleMs", async () => {
    const { root, store } = fresh({ lockTimeoutMs: 300, lockStaleMs: 60_000 });
    writeFileSync(join(root, LOCK_NAME), lockFor(1, { host: "elsewhere.example" }));
    await timedOut(store.write("/memories/f", bytes("x"), { ifAbsent: true }));
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(root, LOCK_NAME), old, old);
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(existsSync(join(root, LOCK_NAME))).toBe(false);
  });

  it("respects an unreadable lock until it is older than lockStaleMs", async () => {
    const { root, store } = fresh({ lockTimeoutMs: 300, lockStaleMs: 60_000 });
    writeFileSync(join(root, LOCK_NAME), "");
    await timedOut(store.write("/memories/f", bytes("x"), { ifAbsent: true }));
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(root, LOCK_NAME), old, old);
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(readdirSync(root)).toEqual(["f"]);
  });

  it("treats a lock whose token is not plain hex as unreadable, so it never names a file", async () => {
    const { root, store } = fresh({ lockTimeoutMs: 300, lockStaleMs: 60_000 });
    writeFileSync(join(root, LOCK_NAME), lockFor(await deadPid(), { token: "../../escaped" }));
    await timedOut(store.write("/memories/f", bytes("x"), { ifAbsent: true }));
    expect(readdirSync(join(root, "..")).sort()).toEqual(["memories"]);
    expect(readdirSync(root)).toEqual([LOCK_NAME]);
  });

  it("serialises many concurrent changes from stores of one process without losing any", async () => {
    const { root, store } = fresh();
    const second = new FsStore({ root });
    await store.write("/memories/counter", bytes("0"), { ifAbsent: true });
    const bump = async (s: FsStore) => {
      for (;;) {
        const current = await s.read("/memories/counter");
        const next = String(Number(text(current?.data)) + 1);
        try {
          await s.write("/memories/counter", bytes(next), { ifVersion: current!.version });
          return;
        } catch (error) {
          if ((error as { code?: string }).code !== "CONFLICT") throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: 40 }, (_, i) => bump(i % 2 === 0 ? store : second)));
    expect(text((await store.read("/memories/counter"))?.data)).toBe("40");
  });
});

describe("taking over an abandoned lock", () => {
  it("goes through an abandoned takeover marker too, and cleans both up", async () => {
    const { root, store } = fresh({ lockTimeoutMs: 2000 });
    const [holder, breaker] = [await deadPid(), await deadPid()];
    writeFileSync(join(root, LOCK_NAME), lockFor(holder, { token: "a".repeat(32) }));
    writeFileSync(
      join(root, `${MARKER_PREFIX}${"a".repeat(32)}`),
      lockFor(breaker, { token: "b".repeat(32) }),
    );
    await store.write("/memories/f", bytes("x"), { ifAbsent: true });
    expect(readdirSync(root)).toEqual(["f"]);
  });

  it("leaves the lock alone while a live process holds its takeover marker", async () => {
    const { root, store } = fresh({ lockTimeoutMs: 300 });
    const holder = await deadPid();
    const breaker = await startSleeper();
    writeFileSync(join(root, LOCK_NAME), lockFor(holder, { token: "c".repeat(32) }));
    writeFileSync(join(root, `${MARKER_PREFIX}${"c".repeat(32)}`), lockFor(breaker.pid!));
    await timedOut(store.write("/memories/f", bytes("x"), { ifAbsent: true }));
    expect(existsSync(join(root, "f"))).toBe(false);
  });

  it(
    "lets exactly one of several processes racing past an abandoned lock create the file",
    { timeout: 60_000 },
    async () => {
      const { root } = fresh();
      const racers = Array.from({ length: 4 }, (_, i) => startFixture("create-race.ts", [root, `r${i}`]));
      const outcomes = racers.map((child) => outputOf(child));
      await Promise.all(racers.map((child) => waitForLine(child, "ready")));
      writeFileSync(join(root, LOCK_NAME), lockFor(await deadPid()));
      for (const child of racers) child.stdin?.end("go\n");
      const lines = (await Promise.all(outcomes)).map((out) => out.trim().split("\n").at(-1));
      expect(lines.filter((line) => line === "won")).toHaveLength(1);
      expect(lines.filter((line) => line === "lost")).toHaveLength(3);
      const winner = lines.indexOf("won");
      expect(readFileSync(join(root, "same"), "utf8")).toBe(`r${winner}`);
      expect(readdirSync(root)).toEqual(["same"]);
    },
  );
});
