/** `mem serve` as a user runs it: the address on stdout, the store checked at start, tokens off loopback. */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { ensureConsoleBuilt } from "./helpers/browser.js";
import { memCommandLine, PACKAGE_DIR, runMem } from "./helpers/run-mem.js";

const base = mkdtempSync(join(tmpdir(), "mem-serve-cli-"));
beforeAll(() => ensureConsoleBuilt());
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Starts `mem serve ARGS`, resolves with the first line of stdout (the address) and the running child. */
const serve = (args: string[]) =>
  new Promise<{ address: string; stop: () => Promise<number | null> }>((resolve, reject) => {
    const [command = process.execPath, ...rest] = memCommandLine(["serve", ...args]);
    const child = spawn(command, rest, { cwd: PACKAGE_DIR, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line !== undefined) {
        resolve({
          address: line,
          stop: () =>
            new Promise((done) => {
              child.on("close", done);
              child.kill("SIGTERM");
            }),
        });
      }
    });
    child.on("close", (code) => reject(new Error(`mem serve exited ${code}: ${err}`)));
  });

describe("mem serve", () => {
  it("serves a mount table with --mounts: the mounts and their access in the API", async () => {
    const dir = join(base, "mounted");
    mkdirSync(join(dir, "team"), { recursive: true });
    writeFileSync(join(dir, "team", "rules.md"), "rule\n");
    writeFileSync(
      join(dir, "mounts.json"),
      JSON.stringify({
        "/memories": { url: "fs:./mine" },
        "/memories/team": { url: "fs:./team", access: "read_only" },
      }),
    );
    mkdirSync(join(dir, "mine"));
    const running = await serve(["--mounts", join(dir, "mounts.json"), "--port", "0"]);
    try {
      const info = (await (await fetch(`${running.address}api/info`)).json()) as { mounts: unknown };
      expect(info.mounts).toEqual([
        { path: "/memories", access: "read_write" },
        { path: "/memories/team", access: "read_only" },
      ]);
      const list = (await (await fetch(`${running.address}api/list?path=/memories`)).json()) as {
        entries: { name: string; readOnly?: boolean }[];
      };
      expect(list.entries.map((e) => [e.name, e.readOnly === true])).toEqual([["team", true]]);
      const view = (await (
        await fetch(`${running.address}api/view?path=/memories/team/rules.md`)
      ).json()) as {
        content: string;
      };
      expect(view.content).toBe(
        "Here's the content of /memories/team/rules.md with line numbers:\n     1\trule",
      );
    } finally {
      await running.stop();
    }
  }, 120_000);

  it("prints its address and serves the page and the API, read-only", async () => {
    const root = join(base, "one");
    const store = await openStore(`fs:${root}`);
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "hello\n" });
    await store.close?.();
    const running = await serve([`fs:${root}`, "--port", "0"]);
    try {
      expect(running.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[\w-]{16}\/$/);
      const page = await fetch(running.address);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="app">');
      const info = (await (await fetch(`${running.address}api/info`)).json()) as { writes: boolean };
      expect(info.writes).toBe(false);
      const view = (await (await fetch(`${running.address}api/view?path=/memories/a.md`)).json()) as {
        content: string;
      };
      expect(view.content).toBe("Here's the content of /memories/a.md with line numbers:\n     1\thello");
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });

  it("with --allow-writes makes up a token and prints the login address", async () => {
    const running = await serve([`fs:${join(base, "two")}`, "--allow-writes"]);
    try {
      const login = new URL(running.address);
      expect(login.searchParams.get("token")).toMatch(/^[\w-]{32}$/);
      expect((await fetch(`${login.origin}/api/info`)).status).toBe(401);
      const signedIn = await fetch(running.address, { redirect: "manual" });
      expect(signedIn.status).toBe(303);
    } finally {
      await running.stop();
    }
  });

  it("answers while a pathological regular expression is searched, and stops on SIGTERM", async () => {
    const root = join(base, "four");
    const store = await openStore(`fs:${root}`);
    const line = "an ordinary line of sixty characters, give or take a few...";
    for (let i = 0; i < 200; i++) {
      await executeCommand(store, { command: "create", path: `/memories/f${i}.md`, file_text: `${line}\n` });
    }
    await store.close?.();
    const running = await serve([`fs:${root}`]);
    let code: number | null | undefined;
    try {
      // A backtracking engine would hold the event loop for 2^60 steps on each line.
      const searching = fetch(`${running.address}api/search?regex=1&q=${encodeURIComponent("(.*)*X")}`);
      const info = await fetch(`${running.address}api/info`, { signal: AbortSignal.timeout(20_000) });
      expect(info.status).toBe(200);
      const found = (await (await searching).json()) as { hits: unknown[]; searched: number };
      expect(found).toMatchObject({ hits: [], searched: 200 });
      // Another search is in flight when the signal comes: the process still ends, and cleanly.
      void fetch(`${running.address}api/search?regex=1&q=${encodeURIComponent("(.*)*X")}`).catch(() => {});
      code = await running.stop();
    } finally {
      if (code === undefined) await running.stop();
    }
    expect(code).toBe(0);
  }, 60_000);

  it("takes a read token and a write token", async () => {
    const token = "a-read-only-token-for-support";
    const writeToken = "a-write-token-for-operators";
    const running = await serve([`fs:${join(base, "five")}`, "--token", token, "--write-token", writeToken]);
    try {
      const info = async (bearer: string) =>
        (await (
          await fetch(`${running.address}api/info`, { headers: { authorization: `Bearer ${bearer}` } })
        ).json()) as { writes: boolean; version: string; store: { name: string } };
      expect((await info(token)).writes).toBe(false);
      const writer = await info(writeToken);
      expect(writer.writes).toBe(true);
      expect(writer.store.name).toBe(`fs:${join(base, "five")}`);
      expect(writer.version).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      await running.stop();
    }
  });

  it("refuses to start off loopback without a token, and a store that cannot work", async () => {
    const open = await runMem(["serve", `fs:${join(base, "three")}`, "--host", "0.0.0.0"]);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain("--token is required when --host is not a loopback address");
    const missing = await runMem(["serve", "redis://app:hunter2@127.0.0.1:1/x"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).not.toContain("hunter2");
  });
});
