import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext } from "../src/context.js";
import { openStore } from "../src/index.js";
import { createProgram } from "../src/program.js";
import { memCommandLine, PACKAGE_DIR, runMem } from "./helpers/run-mem.js";
import {
  asBuffers,
  contents,
  freshUrl,
  KEY,
  SAMPLE,
  type Servers,
  seed,
  startServers,
  withStore,
} from "./helpers/stores.js";
import { keepTwoVersions } from "./helpers/versions.js";

let servers: Servers;
beforeAll(async () => {
  servers = await startServers();
});
afterAll(async () => {
  await servers?.stop();
});

const mem = (args: string[], env: Record<string, string | undefined> = {}) =>
  runMem(args, { env: { ...servers.env, ...env } });

const ESCAPE = "\u001b";

/** A context for running `mem` in this process: its stdout is kept, its stderr dropped. */
const inProcess = (env: Record<string, string | undefined>) => {
  let out = "";
  const ctx = createContext({
    stdout: {
      write: (c) => {
        out += String(c);
      },
    },
    stderr: { write: () => true },
    env,
    cwd: PACKAGE_DIR,
  });
  return { ctx, output: () => out };
};

const withoutColorSettings = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
  const { NO_COLOR: _no, FORCE_COLOR: _force, ...rest } = env;
  return rest;
};

describe("mem --version", () => {
  it("prints the version of @mem/cli, as its package.json gives it, and exits 0", async () => {
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as {
      version: string;
    };
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ["--version", "-V"]) {
      const run = await mem([flag]);
      expect({ code: run.code, out: run.out, stderr: run.stderr }).toEqual({
        code: 0,
        out: `${manifest.version}\n`,
        stderr: "",
      });
    }
  });
});

describe("mem view, cat, run, tree", () => {
  it("view prints exactly what the tool returns, also for a line range", async () => {
    const url = freshUrl(servers, "encrypted+fs");
    await seed(servers, url);
    for (const args of [[], ["/memories/notes.md"], ["/memories/notes.md", "--range", "2:-1"]]) {
      const input = {
        command: "view",
        path: args[0] ?? "/memories",
        ...(args[2] && { view_range: [2, -1] }),
      };
      const expected = await withStore(servers, url, (store) => executeCommand(store, input));
      const result = await mem(["view", url, ...args]);
      expect(result.code).toBe(0);
      expect(result.out).toBe(`${expected.content}\n`);
    }
    const missing = await mem(["view", url, "/memories/nope.md", "--json"]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.out)).toEqual({
      content: "The path /memories/nope.md does not exist. Please provide a valid path.",
      isError: true,
    });
  });

  it("cat prints the raw bytes of any file, hidden ones included, decrypted", async () => {
    const url = freshUrl(servers, "encrypted+fs");
    await seed(servers, url);
    const binary = await mem(["cat", url, "/memories/projects/a/binary.bin"]);
    expect(binary.code).toBe(0);
    expect(binary.stdout).toEqual(Buffer.from(SAMPLE.get("/memories/projects/a/binary.bin") as Uint8Array));
    expect((await mem(["cat", url, "/memories/.config/settings.json"])).out).toBe('{"hidden": true}\n');
    const outside = await mem(["cat", url, "/memories/../etc/passwd"]);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain("/memories/../etc/passwd");
    const dir = await mem(["cat", url, "/memories/projects"]);
    expect(dir.code).toBe(1);
    expect(dir.stderr).toBe("mem: /memories/projects is a directory.\n");
  });

  it("run executes any tool input and exits 1 on an error result", async () => {
    const url = freshUrl(servers, "redis");
    const created = await mem([
      "run",
      url,
      '{"command":"create","path":"/memories/a.md","file_text":"one\\n"}',
    ]);
    expect(created).toMatchObject({ code: 0, out: "File created successfully at: /memories/a.md\n" });
    const again = await mem([
      "run",
      url,
      '{"command":"create","path":"/memories/a.md","file_text":"two\\n"}',
    ]);
    expect(again.code).toBe(1);
    expect(again.out).toBe("Error: File /memories/a.md already exists\n");
    const bad = await mem(["run", url, "{not json"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^mem: The input is not valid JSON/);
    expect(await contents(servers, url)).toEqual(
      asBuffers(new Map([["/memories/a.md", new TextEncoder().encode("one\n")]])),
    );
  });

  it("tree shows every listed file and directory with sizes, hidden ones left out as the tool does", async () => {
    const url = freshUrl(servers, "s3");
    await seed(servers, url);
    const result = await mem(["tree", url]);
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      [
        "/memories  40B",
        "├── empty.txt  0B",
        "├── notes.md  20B",
        "├── projects/  7B",
        "│   └── a/  7B",
        "│       └── binary.bin  7B",
        `└── ${"ü".repeat(60)}/  13B`,
        `    └── ${"ß".repeat(40)}.txt  13B`,
        // Every file quotas count, the hidden and node_modules ones the listing leaves out included.
        "6 files, 77B (hidden ones included)",
        "",
      ].join("\n"),
    );
  });
});

describe("mem sweep", () => {
  for (const kind of ["fs", "redis"] as const) {
    it(`removes what was not accessed for --expire-after seconds, and only that (${kind})`, async () => {
      const url = freshUrl(servers, kind);
      const expiring = { env: servers.env, expireAfterSeconds: 3600 };
      const store = await openStore(url, expiring);
      await store.write("/memories/old.md", new TextEncoder().encode("old\n"), { ifAbsent: true });
      await store.close?.();
      await new Promise((resolve) => setTimeout(resolve, 400));
      const fresh = await openStore(url, expiring);
      await fresh.write("/memories/new.md", new TextEncoder().encode("new\n"), { ifAbsent: true });
      await fresh.close?.();

      // In this process: a child's start-up would take longer than the gap between the two files.
      const { ctx, output } = inProcess(servers.env);
      await createProgram(ctx).parseAsync(["node", "mem", "sweep", url, "--expire-after", "0.3", "--json"]);
      expect(ctx.exitCode).toBe(0);
      expect(JSON.parse(output())).toEqual({ paths: ["/memories/old.md"], bytes: 4 });
      const left = await withStore(servers, url, async (s) => (await s.files?.())?.map((f) => f.path));
      expect(left).toEqual(["/memories/new.md"]);
    });
  }

  it("needs --expire-after, a positive number of seconds, and changes nothing without it", async () => {
    const url = freshUrl(servers, "fs");
    await seed(servers, url);
    const missing = await mem(["sweep", url]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("--expire-after <seconds>");
    for (const bad of ["0", "-5", "soon", ""]) {
      const result = await mem(["sweep", url, "--expire-after", bad]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("a positive number of seconds");
    }
    expect((await contents(servers, url)).size).toBe(SAMPLE.size);
  });
});

describe("mem verify, du, rotate", () => {
  it("verify reads every file and names each that fails, exiting 1", async () => {
    const dir = servers.tempDir();
    const url = `encrypted+fs:${dir}`;
    await seed(servers, url);
    const clean = await mem(["verify", url]);
    expect(clean.code).toBe(0);
    expect(clean.out).toMatch(/^✓ 6 files, 77B in [\d.]+s: all read back\.\n$/);
    const file = join(dir, ".config", "settings.json");
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    writeFileSync(file, bytes);
    const broken = await mem(["verify", url, "--json"]);
    expect(broken.code).toBe(1);
    const report = JSON.parse(broken.out);
    expect(report.files).toBe(5);
    expect(report.failures).toEqual([
      { path: "/memories/.config/settings.json", error: expect.stringContaining("integrity check failed") },
    ]);
  });

  it("du counts hidden files too and compares with a quota", async () => {
    const url = freshUrl(servers, "redis");
    await seed(servers, url);
    const result = await mem(["du", url, "--max-files", "4", "--json"]);
    // Over quota: exit 1, the JSON as ever.
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out)).toEqual({
      files: 6,
      bytes: [...SAMPLE.values()].reduce((n, d) => n + d.byteLength, 0),
      historyBytes: 0,
      maxFiles: 4,
      overQuota: true,
      hiddenIncluded: true,
    });
  });

  it("du reports the bytes @mem/history keeps apart from the files quotas count", async () => {
    const url = freshUrl(servers, "fs");
    await withStore(servers, url, (store) => keepTwoVersions(store, "/memories/a.md", "v1", "v2"));
    const json = await mem(["du", url, "--max-files", "1", "--json"]);
    const report = JSON.parse(json.out);
    expect(report).toMatchObject({ files: 1, bytes: 3, maxFiles: 1, overQuota: false });
    // The version ("v1\n"), its path file ("/memories/a.md"), the running total ("3") and the change
    // log's two records (the create and the edit).
    const log = await withStore(servers, url, (store) => store.list("/memories/.mem-history/log", 1));
    expect(log?.entries).toHaveLength(2);
    const historyBytes = 3 + "/memories/a.md".length + 1 + log!.size;
    expect(report.historyBytes).toBe(historyBytes);
    const text = await mem(["du", url], { NO_COLOR: "1" });
    expect(text.out).toContain(`history  ${historyBytes}B (not counted by quotas)\n`);
  });

  it("rotate re-encrypts every file under the keyring's first key; a second run finds nothing to do", async () => {
    const dir = servers.tempDir();
    const url = `encrypted+fs:${dir}`;
    await seed(servers, url);
    const newKey = Buffer.alloc(32, 42).toString("base64");
    const first = await mem(["rotate", url, "--json"], { MEMORY_KEY: `next:${newKey},default:${KEY}` });
    expect(first.stderr).toBe("");
    expect(JSON.parse(first.out)).toMatchObject({ rotated: SAMPLE.size + 1, current: 0 });
    const second = await mem(["rotate", url, "--json"], { MEMORY_KEY: `next:${newKey},default:${KEY}` });
    expect(JSON.parse(second.out)).toMatchObject({ rotated: 0 });
    // The old key can go: everything opens under the new one alone.
    const verified = await mem(["verify", url], { MEMORY_KEY: `next:${newKey}` });
    expect(verified.code).toBe(0);
    const plain = await mem(["rotate", freshUrl(servers, "fs")]);
    expect(plain).toMatchObject({ code: 2, stderr: "mem: mem rotate needs an encrypted+ store URL.\n" });
  });
});

describe("output", () => {
  it("has no escape codes when piped, and none on a terminal with NO_COLOR, but colours on a terminal", async () => {
    const url = freshUrl(servers, "fs");
    await seed(servers, url);
    const piped = await mem(["tree", url]);
    expect(piped.out).toContain("notes.md");
    expect(piped.out + piped.stderr).not.toContain(ESCAPE);

    const inTerminal = (env: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        const line = memCommandLine(["tree", url])
          .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
          .join(" ");
        const child = spawn("script", ["-qec", line, "/dev/null"], {
          cwd: PACKAGE_DIR,
          env: { ...withoutColorSettings(process.env), ...servers.env, TERM: "xterm-256color", ...env },
        });
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString("utf8");
        });
        child.on("error", reject);
        child.on("close", () => resolve(out));
      });
    const coloured = await inTerminal({});
    expect(coloured).toContain("notes.md");
    expect(coloured).toContain(ESCAPE);
    const noColor = await inTerminal({ NO_COLOR: "1" });
    expect(noColor).toContain("notes.md");
    expect(noColor).not.toContain(ESCAPE);
  });

  it("never prints a password, also when the server cannot be reached", async () => {
    const result = await mem(["tree", "redis://app:hunter2@127.0.0.1:1/notes"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^mem: /);
    expect(result.out + result.stderr).not.toContain("hunter2");
    const bad = await mem(["tree", "rediss://app:hunter2@/notes"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("rediss://app:***@/notes");
    expect(bad.stderr).not.toContain("hunter2");
  });

  it("history lists the versions @mem/history kept, and restore puts one back, itself undoable", async () => {
    const url = freshUrl(servers, "fs");
    await withStore(servers, url, (store) => keepTwoVersions(store, "/memories/a.md", "v1", "v2"));
    const listed = await mem(["history", url, "/memories/a.md", "--json"]);
    expect(listed.code).toBe(0);
    const { versions } = JSON.parse(listed.out) as { versions: { id: string; size: number }[] };
    expect(versions.map((v) => v.size)).toEqual([3]);
    const restored = await mem(["restore", url, "/memories/a.md", versions[0]!.id]);
    expect(restored.code).toBe(0);
    expect((await mem(["cat", url, "/memories/a.md"])).out).toBe("v1\n");
    expect(JSON.parse((await mem(["history", url, "/memories/a.md", "--json"])).out).versions).toHaveLength(
      2,
    );
    const missing = await mem(["restore", url, "/memories/a.md", "nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('has no version "nope"');
  });

  it("every command's help has an example", async () => {
    const help = await mem(["--help"]);
    expect(help.code).toBe(0);
    const names = [...help.out.matchAll(/^ {2}([a-z]+) /gm)]
      .map((m) => m[1] as string)
      .filter((n) => n !== "help");
    expect(names).toEqual([
      "tree",
      "view",
      "cat",
      "grep",
      "put",
      "run",
      "export",
      "import",
      "copy",
      "verify",
      "du",
      "sweep",
      "tenants",
      "purge",
      "rotate",
      "history",
      "restore",
      "log",
      "rollback",
      "mcp",
      "serve",
    ]);
    // Each command's own help, from the same program in this process (one child process per command
    // would only repeat the start-up).
    for (const name of names) {
      const { ctx, output } = inProcess({});
      await expect(createProgram(ctx).parseAsync(["node", "mem", name, "--help"])).rejects.toMatchObject({
        code: "commander.helpDisplayed",
      });
      expect(output()).toMatch(new RegExp(`Examples?:\\n {2}\\$ (MEMORY_KEY=\\S+ )?mem ${name} `));
    }
  });
});

describe("failures", () => {
  it("reading a store that does not exist says so in one line and creates nothing", async () => {
    const dir = servers.tempDir();
    const missing = join(dir, "does-not-exist");
    for (const args of [
      ["tree", `fs:${missing}`],
      ["view", `fs:${missing}`],
      ["cat", `fs:${missing}`, "/memories/a"],
      ["du", `fs:${missing}`],
      ["verify", `fs:${missing}`],
      ["export", `fs:${missing}`, join(dir, "out.tar")],
      ["history", `fs:${missing}`, "/memories/a"],
      ["copy", `fs:${missing}`, `fs:${join(dir, "copy")}`],
    ]) {
      const result = await mem(args);
      expect({ args, code: result.code, stderr: result.stderr, out: result.out }).toEqual({
        args,
        code: 1,
        stderr: `mem: no store at ${missing}\n`,
        out: "",
      });
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("reading a SQLite database that does not exist says so and leaves no file behind", async () => {
    const dir = servers.tempDir();
    const missing = join(dir, "missing.db");
    for (const args of [
      ["tree", `sqlite:${missing}`],
      ["du", `sqlite:${missing}`],
    ]) {
      const result = await mem(args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({
        args,
        code: 1,
        stderr: `mem: no store at ${missing}\n`,
      });
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("an import of a file that is not there is one line, no stack trace, and creates nothing", async () => {
    const dir = servers.tempDir();
    const result = await mem(["import", `fs:${join(dir, "x")}`, join(dir, "missing.tar")]);
    expect(result).toMatchObject({ code: 1, stderr: `mem: ${join(dir, "missing.tar")} does not exist.\n` });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("names the store that failed, password masked, on one line", async () => {
    const dir = servers.tempDir();
    const result = await mem(["copy", "redis://app:hunter2@127.0.0.1:1/notes", `fs:${join(dir, "to")}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^mem: Redis redis:\/\/app:\*\*\*@127\.0\.0\.1:1, prefix "notes": [^\n]+\n$/,
    );
    expect(result.stderr).not.toContain("    at ");
    const to = await mem(["copy", `fs:${join(dir, "from")}`, "redis://app:hunter2@127.0.0.1:1/notes"]);
    expect(to.stderr).toBe(`mem: no store at ${join(dir, "from")}\n`);
    await seed(servers, `fs:${join(dir, "from")}`);
    const target = await mem(["copy", `fs:${join(dir, "from")}`, "redis://app:hunter2@127.0.0.1:1/notes"]);
    expect(target.code).toBe(1);
    expect(target.stderr).toMatch(
      /^mem: Redis redis:\/\/app:\*\*\*@127\.0\.0\.1:1, prefix "notes": [^\n]+\n$/,
    );
  });

  it("du exits 1 over quota, 0 within it", async () => {
    const url = freshUrl(servers, "fs");
    await seed(servers, url);
    const over = await mem(["du", url, "--max-files", "3"]);
    expect(over.code).toBe(1);
    expect(over.out).toContain("Over quota");
    const within = await mem(["du", url, "--max-files", "6", "--max-bytes", "1000000"]);
    expect(within.code).toBe(0);
  });

  it("edits through mem run keep versions in a store with history, and --history starts one", async () => {
    const url = freshUrl(servers, "fs");
    const create = '{"command":"create","path":"/memories/a.md","file_text":"one\\n"}';
    const edit = (from: string, to: string) =>
      `{"command":"str_replace","path":"/memories/a.md","old_str":"${from}","new_str":"${to}"}`;
    expect((await mem(["run", url, create])).code).toBe(0);
    expect((await mem(["run", url, edit("one", "two")])).code).toBe(0);
    expect((await mem(["history", url, "/memories/a.md"])).out).toBe(
      "/memories/a.md: no earlier versions kept.\n",
    );
    expect((await mem(["run", url, "--history", edit("two", "three")])).code).toBe(0);
    expect((await mem(["run", url, edit("three", "four")])).code).toBe(0);
    const versions = await mem(["history", url, "/memories/a.md", "--json"]);
    expect(JSON.parse(versions.out).versions).toHaveLength(2);
    const peek = await mem(["view", url, "/memories/.mem-history"]);
    expect(peek.code).toBe(1);
  });
});
