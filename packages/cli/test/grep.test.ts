import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand, searchMemory } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { runMem } from "./helpers/run-mem.js";

let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mem-grep-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh store of each kind the command may be given, seeded through the memory tool. */
const seeded = async (): Promise<string[]> => {
  n += 1;
  const urls = [`fs:${join(dir, `fs-${n}`)}`, `sqlite:${join(dir, `db-${n}.sqlite`)}`];
  for (const url of urls) {
    const store = await openStore(url);
    try {
      for (const [path, file_text] of [
        ["/memories/tea.md", "Green tea\nBlack coffee\n"],
        ["/memories/notes/todo.md", "- [ ] buy TEA\n- [x] call\n"],
        ["/memories/.hidden.md", "tea\n"],
      ] as const) {
        expect((await executeCommand(store, { command: "create", path, file_text })).isError).toBe(false);
      }
    } finally {
      await store.close?.();
    }
  }
  return urls;
};

describe("mem grep", () => {
  it("prints path:line: text for every match, in path order, as searchMemory finds them", async () => {
    for (const url of await seeded()) {
      const run = await runMem(["grep", url, "tea"]);
      expect(run).toMatchObject({
        code: 0,
        out: "/memories/notes/todo.md:1: - [ ] buy TEA\n/memories/tea.md:1: Green tea\n",
      });
      const exact = await runMem(["grep", url, "TEA", "--case-sensitive", "--path", "/memories/notes"]);
      expect(exact.out).toBe("/memories/notes/todo.md:1: - [ ] buy TEA\n");
      const regex = await runMem(["grep", url, "^- \\[x\\]", "--regex", "--json"]);
      expect(regex.code).toBe(0);
      const store = await openStore(url);
      try {
        expect(JSON.parse(regex.out)).toEqual(
          await searchMemory(store, { query: "^- \\[x\\]", regex: true }),
        );
      } finally {
        await store.close?.();
      }
      const limited = await runMem(["grep", url, "e", "--limit", "1"]);
      expect(limited.out).toBe("/memories/notes/todo.md:1: - [ ] buy TEA\n");
      expect(limited.stderr).toBe("2 more matching line(s) not shown (--limit).\n");
    }
  });

  it("exits 1 when nothing matches and 2 on bad input", async () => {
    const [url] = (await seeded()) as [string];
    expect(await runMem(["grep", url, "nothing here"])).toMatchObject({ code: 1, out: "" });
    const bad: [string[], string][] = [
      [["grep", url, ""], "`query` must not be empty"],
      [["grep", url, "(", "--regex"], 'Invalid regular expression "(": missing closing )'],
      [["grep", url, "tea", "--path", "/etc"], "outside the memory directory"],
      [["grep", url, "tea", "--path", "/memories/none"], "/memories/none does not exist."],
      [["grep", url, "tea", "--limit", "0"], "an integer from 1 to 10000"],
    ];
    for (const [args, message] of bad) {
      const run = await runMem(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain(message);
    }
  });
});
