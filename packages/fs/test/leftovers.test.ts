import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, linkSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { executeCommand } from "@mem/core";
import { FsStore } from "@mem/fs";
import { afterAll, describe, expect, it } from "vitest";
import { LOCK_NAME, LOCK_TEMP_PREFIX } from "../src/names.js";
import { bytes, tempDir, text } from "./helpers/files.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) child.kill("SIGKILL");
});

const fresh = (options: { lockTimeoutMs?: number } = {}) => {
  const root = join(tempDir(), "memories");
  return { root, store: new FsStore({ root, ...options }) };
};

/** The pid of a process that has exited and been reaped. */
const deadPid = async (): Promise<number> => {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
};

const stateOf = (pid: number): string | undefined => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
};

describe("a lock holder killed and never reaped (a zombie)", () => {
  it("counts as dead: the next writer takes the lock over", { timeout: 60_000 }, async () => {
    const { root, store } = fresh({ lockTimeoutMs: 3_000 });
    await store.write("/memories/before", bytes("b"), { ifAbsent: true });
    // The shell starts the holder, prints its pid, then becomes `sleep`, which never waits for children:
    // once killed, the holder stays a zombie for as long as this parent runs.
    const holderCommand = [
      process.execPath,
      "--conditions=@mem/source",
      "--import",
      "tsx",
      join(packageDir, "test", "fixtures", "hold-lock.ts"),
      root,
    ]
      .map((arg) => `'${arg}'`)
      .join(" ");
    const parent = spawn("sh", ["-c", `${holderCommand} & echo "pid $!"; exec sleep 600`], {
      cwd: packageDir,
      stdio: ["ignore", "pipe", "inherit"],
    });
    started.push(parent);
    const pid = await new Promise<number>((resolve, reject) => {
      let out = "";
      let holder = 0;
      parent.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        holder ||= Number(/pid (\d+)/.exec(out)?.[1] ?? 0);
        if (holder && out.split("\n").includes("held")) resolve(holder);
      });
      parent.once("exit", () => reject(new Error(`holder's parent exited: ${out}`)));
    });
    expect(JSON.parse(readFileSync(join(root, LOCK_NAME), "utf8")).pid).toBe(pid);
    process.kill(pid, "SIGKILL");
    while (stateOf(pid) !== "Z") await new Promise((resolve) => setTimeout(resolve, 10));

    await store.write("/memories/after", bytes("a"), { ifAbsent: true });
    expect(text((await store.read("/memories/after"))?.data)).toBe("a");
    expect(stateOf(pid)).toBe("Z");
    expect(existsSync(join(root, LOCK_NAME))).toBe(false);
  });
});

describe("a lock candidate left by a process killed before it placed it", () => {
  it("is removed by the next writer once older than lockStaleMs; candidates of live processes stay", async () => {
    const { root, store } = fresh();
    await store.write("/memories/a", bytes("a"), { ifAbsent: true });
    const pid = await deadPid();
    const dead = `${LOCK_TEMP_PREFIX}${pid}.0123456789abcdef`;
    const recent = `${LOCK_TEMP_PREFIX}${pid}.00000000000000aa`;
    const live = `${LOCK_TEMP_PREFIX}${process.ppid}.fedcba9876543210`;
    for (const name of [dead, recent, live]) writeFileSync(join(root, name), "{}");
    const minuteAgo = new Date(Date.now() - 60_000);
    for (const name of [dead, live]) utimesSync(join(root, name), minuteAgo, minuteAgo);
    // A store looks for them on its first change, then at most every lockStaleMs / 2.
    await store.write("/memories/b", bytes("b"), { ifAbsent: true });
    expect(readdirSync(root)).toContain(dead);
    await new FsStore({ root }).write("/memories/c", bytes("c"), { ifAbsent: true });
    // A recent one may be another host's (its pid means nothing here): it waits until it is stale.
    expect(readdirSync(root).sort()).toEqual([live, recent, "a", "b", "c"].sort());
  });
});

describe("a hard link planted in the root", () => {
  it("is refused as a storage failure, so the linked file is never disclosed", async () => {
    const { root, store } = fresh();
    const outside = join(tempDir(), "secret.txt");
    writeFileSync(outside, "outside the store\n");
    await store.write("/memories/own", bytes("mine\n"), { ifAbsent: true });
    linkSync(outside, join(root, "planted.txt"));
    expect(await executeCommand(store, { command: "view", path: "/memories/planted.txt" })).toEqual({
      content: "Error: view failed for /memories/planted.txt: file has other hard links",
      isError: true,
    });
    expect(
      await executeCommand(store, {
        command: "str_replace",
        path: "/memories/planted.txt",
        old_str: "outside",
        new_str: "x",
      }),
    ).toEqual({
      content: "Error: str_replace failed for /memories/planted.txt: file has other hard links",
      isError: true,
    });
    expect(readFileSync(outside, "utf8")).toBe("outside the store\n");
    // Deleting removes the planted name only.
    expect((await executeCommand(store, { command: "delete", path: "/memories/planted.txt" })).isError).toBe(
      false,
    );
    expect(readFileSync(outside, "utf8")).toBe("outside the store\n");
    expect(text((await store.read("/memories/own"))?.data)).toBe("mine\n");
  });
});
