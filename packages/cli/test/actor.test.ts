import { InMemoryStore, type MemoryStore } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { describe, expect, it } from "vitest";
import { createContext } from "../src/context.js";
import { createProgram } from "../src/program.js";
import { PACKAGE_DIR } from "./helpers/run-mem.js";

/** The CLI in this process, with every store URL opening `store`. */
const memWith = (store: MemoryStore) => async (args: string[]) => {
  let out = "";
  let err = "";
  const ctx = createContext({
    stdout: {
      write: (c) => {
        out += String(c);
      },
    },
    stderr: {
      write: (c) => {
        err += String(c);
      },
    },
    env: {},
    cwd: PACKAGE_DIR,
  });
  ctx.withStore = async (_url, task) => task(store);
  let code = 0;
  try {
    await createProgram(ctx).parseAsync(["node", "mem", ...args]);
    code = ctx.exitCode ?? 0;
  } catch (error) {
    code = (error as { exitCode?: number }).exitCode ?? 1;
    err += (error as Error).message;
  }
  return { code, out, err };
};

describe("mem run --actor", () => {
  it("records the actor with each change, and mem history shows it", async () => {
    const store = new HistoryStore(new InMemoryStore());
    const mem = memWith(store);
    const url = "memory:";
    const create = '{"command":"create","path":"/memories/a.md","file_text":"one\\n"}';
    const edit = '{"command":"str_replace","path":"/memories/a.md","old_str":"one","new_str":"two"}';
    expect((await mem(["run", "--actor", "nightly-import", url, create])).code).toBe(0);
    expect((await mem(["run", "--actor", "nightly-import", url, edit])).code).toBe(0);
    const [version] = await store.versions("/memories/a.md");
    expect(version).toMatchObject({ command: "str_replace", actor: "nightly-import" });
    const history = await mem(["history", url, "/memories/a.md"]);
    expect(history.out).toMatch(/\t4 bytes\tstr_replace by nightly-import\n$/);
  });

  it("refuses an actor that is not a short printable name, changing nothing", async () => {
    const store = new InMemoryStore();
    const mem = memWith(store);
    const bad = await mem([
      "run",
      "--actor",
      "a\tb",
      "memory:",
      '{"command":"create","path":"/memories/x","file_text":""}',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--actor must be a non-empty string");
    expect(await store.stat("/memories/x")).toBeNull();
  });
});
