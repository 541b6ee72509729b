import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ScriptedMemoryStores, startScriptedMemoryStores } from "@mem/testing/memory-stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureConsoleBuilt } from "./helpers/browser.js";
import { memCommandLine, PACKAGE_DIR, runMem } from "./helpers/run-mem.js";

const KEY = "sk-ant-cli-test-5f2d9c0e7a1b";
let server: ScriptedMemoryStores;
let dir: string;
beforeAll(async () => {
  server = await startScriptedMemoryStores();
  dir = mkdtempSync(join(tmpdir(), "mem-anthropic-"));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const mem = (args: string[]) =>
  runMem(args, { env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url } });

const FILES: Record<string, string> = {
  "notes.md": "# notes\nline\n",
  "projects/a/todo.md": "- one\n- two\n",
  ".hidden": "kept too\n",
  "empty.txt": "",
};

describe("mem on anthropic:// stores", () => {
  it("copies fs:./memory into a hosted store and back, byte for byte, without echoing the key", async () => {
    const from = join(dir, "from");
    for (const [name, text] of Object.entries(FILES)) {
      mkdirSync(join(from, name, ".."), { recursive: true });
      writeFileSync(join(from, name), text);
    }
    const id = server.createStore();
    const up = await mem(["copy", `fs:${from}`, `anthropic://${id}`]);
    expect({ code: up.code, stderr: up.stderr }).toEqual({ code: 0, stderr: "" });
    expect([...server.model.store(id).paths.keys()].sort()).toEqual([
      "/.hidden",
      "/empty.txt",
      "/notes.md",
      "/projects/a/todo.md",
    ]);
    const back = join(dir, "back");
    const down = await mem(["copy", `anthropic://${id}`, `fs:${back}`]);
    expect({ code: down.code, stderr: down.stderr }).toEqual({ code: 0, stderr: "" });
    for (const [name, text] of Object.entries(FILES))
      expect(readFileSync(join(back, name), "utf8")).toBe(text);
    for (const run of [up, down]) expect(run.out + run.stderr).not.toContain(KEY);
  });

  it("views a hosted store with mem view, and says so when the key is missing", async () => {
    const id = server.createStore();
    server.model.create(server.model.store(id), { path: "/a.md", content: "hello\n" }, null);
    const view = await mem(["view", `anthropic://${id}`, "/memories/a.md"]);
    expect(view.out).toBe("Here's the content of /memories/a.md with line numbers:\n     1\thello\n");
    const missing = await runMem(["view", `anthropic://${id}`, "/memories"], {
      env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: server.url },
    });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("ANTHROPIC_API_KEY");
  });

  it("mem history lists the hosted versions with the API's actor, and mem restore puts one back", async () => {
    const id = server.createStore();
    const hosted = server.model.store(id);
    const memory = server.model.create(
      hosted,
      { path: "/h.md", content: "v1\n" },
      {
        type: "session_actor",
        session_id: "sesn_42",
      },
    );
    server.model.update(hosted, memory.id, { content: "v2\n" }, { type: "user_actor", user_id: "user_7" });
    const first = hosted.versions[0]?.id as string;
    const listed = await mem(["history", `anthropic://${id}`, "/memories/h.md"]);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(new RegExp(`^${first}\t[0-9T:.-]+Z\t3 bytes\tcreated by sesn_42\n$`));
    const restored = await mem(["restore", `anthropic://${id}`, "/memories/h.md", first]);
    expect(restored.code).toBe(0);
    expect(hosted.memories.get(memory.id)?.content).toBe("v1\n");
    expect(hosted.versions.map((v) => v.operation)).toEqual(["created", "modified", "modified"]);
  });

  it("mem serve shows a hosted store and its versions", async () => {
    ensureConsoleBuilt();
    const id = server.createStore();
    const hosted = server.model.store(id);
    const memory = server.model.create(hosted, { path: "/s.md", content: "old\n" }, null);
    server.model.update(
      hosted,
      memory.id,
      { content: "new\n" },
      { type: "session_actor", session_id: "sesn_9" },
    );
    const [command = process.execPath, ...rest] = memCommandLine([
      "serve",
      `anthropic://${id}`,
      "--port",
      "0",
    ]);
    const child = spawn(command, rest, {
      cwd: PACKAGE_DIR,
      env: { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const address = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString();
          if (out.includes("\n")) resolve(out.split("\n")[0] as string);
        });
        child.on("close", (code) => reject(new Error(`mem serve exited ${code}`)));
      });
      const view = (await (await fetch(`${address}api/view?path=/memories/s.md`)).json()) as {
        content: string;
      };
      expect(view.content).toBe("Here's the content of /memories/s.md with line numbers:\n     1\tnew");
      const versions = (await (await fetch(`${address}api/versions?path=/memories/s.md`)).json()) as {
        history: boolean;
        versions: Array<{ id: string; command: string }>;
      };
      expect(versions.history).toBe(true);
      expect(versions.versions.map((v) => [v.id, v.command])).toEqual([[hosted.versions[0]?.id, "created"]]);
      const old = (await (
        await fetch(`${address}api/version?path=/memories/s.md&id=${hosted.versions[0]?.id}`)
      ).json()) as {
        text: string;
      };
      expect(old.text).toBe("old\n");
    } finally {
      await new Promise((done) => {
        child.on("close", done);
        child.kill("SIGTERM");
      });
    }
  });
});
