import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runMem } from "./helpers/run-mem.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "mem-cli-rollback-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `mem run` of one tool call; fails the test unless it succeeds. */
const run = async (url: string, input: object, actor?: string) => {
  const result = await runMem(["run", ...(actor ? ["--actor", actor] : []), url, JSON.stringify(input)]);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
};

describe("history that sticks, mem log and mem rollback", () => {
  it("keeps versions of edits made without ?history after one command with it", async () => {
    const db = join(tempDir(), "team.db");
    await run(`sqlite:${db}?tenant=alice&history`, {
      command: "create",
      path: "/memories/a.md",
      file_text: "one\n",
    });
    const plain = `sqlite:${db}?tenant=alice`;
    await run(plain, { command: "str_replace", path: "/memories/a.md", old_str: "one", new_str: "two" });
    await run(plain, { command: "str_replace", path: "/memories/a.md", old_str: "two", new_str: "three" });
    const history = await runMem(["history", plain, "/memories/a.md", "--json"]);
    const { versions } = JSON.parse(history.out) as { versions: { size: number; command: string }[] };
    expect(versions.map((v) => [v.size, v.command])).toEqual([
      [4, "str_replace"],
      [4, "str_replace"],
    ]);
  });

  it("lists who changed what, rolls back one actor's session, and undoes the rollback", async () => {
    const url = `sqlite:${join(tempDir(), "memory.db")}?tenant=acme&history`;
    await run(url, { command: "create", path: "/memories/plan.md", file_text: "step 1\n" }, "alice");
    await run(url, { command: "create", path: "/memories/people.md", file_text: "bob likes tea\n" }, "alice");
    await pause(20);
    const to = new Date().toISOString();
    await pause(20);
    await run(
      url,
      { command: "str_replace", path: "/memories/plan.md", old_str: "step 1", new_str: "leak" },
      "mallory",
    );
    await run(url, { command: "delete", path: "/memories/people.md" }, "mallory");
    await run(url, { command: "create", path: "/memories/evil.md", file_text: "obey\n" }, "mallory");

    const log = await runMem(["log", url, "--since", to]);
    expect(log.code).toBe(0);
    expect(
      log.out
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t").slice(2)),
    ).toEqual([
      ["str_replace", "/memories/plan.md", "mallory"],
      ["delete", "/memories/people.md", "mallory"],
      ["create", "/memories/evil.md", "mallory"],
    ]);
    const json = JSON.parse((await runMem(["log", url, "--by", "alice", "--json"])).out) as {
      changes: { command: string; path: string; actor: string; version: null | string }[];
    };
    expect(json.changes.map((c) => [c.command, c.path, c.actor, c.version])).toEqual([
      ["create", "/memories/plan.md", "alice", null],
      ["create", "/memories/people.md", "alice", null],
    ]);

    expect((await runMem(["rollback", url, "--to", to, "--by", "mallory"])).code).toBe(2);
    expect((await runMem(["rollback", url, "--to", "last tuesday", "--yes"])).code).toBe(2);
    const dry = await runMem(["rollback", url, "--to", to, "--by", "mallory", "--dry-run"]);
    expect(dry.out).toBe(
      "would restore\t/memories/people.md\nwould restore\t/memories/plan.md\nwould delete\t/memories/evil.md\n" +
        "Would change 3 file(s) of /memories; nothing was changed.\n",
    );
    const done = await runMem([
      "rollback",
      url,
      "--to",
      to,
      "--by",
      "mallory",
      "--actor",
      "ops",
      "--yes",
      "--json",
    ]);
    const result = JSON.parse(done.out) as { id: string; restored: string[]; deleted: string[] };
    expect(result).toMatchObject({
      restored: ["/memories/people.md", "/memories/plan.md"],
      deleted: ["/memories/evil.md"],
    });
    const tree = await runMem(["tree", url]);
    expect(tree.out).toContain("people.md");
    expect(tree.out).not.toContain("evil.md");
    expect((await runMem(["cat", url, "/memories/plan.md"])).out).toBe("step 1\n");
    // The rollback is one change of the log, by who ran it, and its versions carry that actor too.
    const last = (await runMem(["log", url, "--by", "ops"])).out.trim().split("\t");
    expect([last[0], last[2], last[3], last[4]]).toEqual([result.id, "rollback", "/memories", "ops"]);
    const versions = JSON.parse((await runMem(["history", url, "/memories/plan.md", "--json"])).out) as {
      versions: { command: string; actor: string }[];
    };
    expect(versions.versions[0]).toMatchObject({ command: "rollback", actor: "ops" });

    const undo = await runMem(["rollback", url, "--undo", result.id, "--yes"]);
    expect(undo.code).toBe(0);
    expect((await runMem(["cat", url, "/memories/plan.md"])).out).toBe("leak\n");
    expect((await runMem(["tree", url])).out).toContain("evil.md");
    expect((await runMem(["rollback", url, "--undo", "0000000aa-0000-00000000", "--yes"])).code).toBe(2);
  });
});
