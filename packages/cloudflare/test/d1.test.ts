import { executeCommand } from "@mem/core";
import { describe, expect, it } from "vitest";
import { D1Store } from "../src/index.js";
import { bindings, countingD1, freshName } from "./helpers.js";

describe("D1Store round trips", () => {
  it("one per command, two per edit (read, then the conditional write)", async () => {
    const { db, roundTrips } = countingD1(bindings.DB);
    const store = new D1Store(db).scope(freshName());
    await store.usage(); // the tables, created once per binding
    const cost = async (input: Record<string, unknown>) => {
      const before = roundTrips();
      const result = await executeCommand(store, input);
      return { trips: roundTrips() - before, isError: result.isError };
    };
    expect(await cost({ command: "view", path: "/memories" })).toEqual({ trips: 1, isError: false });
    expect(await cost({ command: "create", path: "/memories/a/n.md", file_text: "one\ntwo\n" })).toEqual({
      trips: 1,
      isError: false,
    });
    expect(await cost({ command: "create", path: "/memories/a/n.md", file_text: "x" })).toEqual({
      trips: 1,
      isError: true,
    });
    expect(await cost({ command: "view", path: "/memories/a/n.md" })).toEqual({ trips: 1, isError: false });
    expect(await cost({ command: "view", path: "/memories/a" })).toEqual({ trips: 1, isError: false });
    expect(
      await cost({ command: "str_replace", path: "/memories/a/n.md", old_str: "one", new_str: "uno" }),
    ).toEqual({ trips: 2, isError: false });
    expect(
      await cost({ command: "insert", path: "/memories/a/n.md", insert_line: 1, insert_text: "x" }),
    ).toEqual({ trips: 2, isError: false });
    expect(await cost({ command: "rename", old_path: "/memories/a", new_path: "/memories/b" })).toEqual({
      trips: 1,
      isError: false,
    });
    expect(await cost({ command: "rename", old_path: "/memories/a", new_path: "/memories/c" })).toEqual({
      trips: 1,
      isError: true,
    });
    expect(await cost({ command: "delete", path: "/memories/b" })).toEqual({ trips: 1, isError: false });
  });

  it("a create under a quota is one round trip too, and exact", async () => {
    const { db, roundTrips } = countingD1(bindings.DB);
    const store = new D1Store(db).scope(freshName());
    await store.usage();
    const before = roundTrips();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        executeCommand(
          store,
          { command: "create", path: `/memories/f${i}.md`, file_text: "x" },
          { maxFiles: 3 },
        ),
      ),
    );
    expect(results.filter((r) => !r.isError)).toHaveLength(3);
    expect(roundTrips() - before).toBe(20);
  });
});

describe("D1Store failures", () => {
  it("a missing binding answers the failure result naming D1", async () => {
    const store = new D1Store(undefined);
    expect(await executeCommand(store, { command: "view", path: "/memories" })).toEqual({
      content:
        "Error: view failed for /memories: the D1 binding is missing (check the d1_databases of wrangler.toml)",
      isError: true,
    });
  });

  it("a D1 error answers the failure result naming D1, with no query or message of D1 in it", async () => {
    // A database whose mem_files is not the store's table: every statement of the store fails in D1.
    await bindings.BROKEN.prepare("CREATE TABLE IF NOT EXISTS mem_files (x INTEGER)").run();
    const store = new D1Store(bindings.BROKEN).scope("t");
    const created = await executeCommand(store, {
      command: "create",
      path: "/memories/a.md",
      file_text: "a",
    });
    // The tables are checked before the write is sent, so D1 is known not to have applied it.
    expect(created).toEqual({
      content: "Error: create failed for /memories/a.md: D1 storage error",
      isError: true,
    });
    const viewed = await executeCommand(store, { command: "view", path: "/memories/a.md" });
    expect(viewed).toEqual({
      content: "Error: view failed for /memories/a.md: D1 storage error",
      isError: true,
    });
  });

  it("a path of many levels stays within D1's 100 bound parameters (its ancestors travel as one)", async () => {
    const store = new D1Store(bindings.DB).scope(freshName());
    const deep = `/memories/${Array.from({ length: 300 }, (_, i) => `d${i % 10}`).join("/")}/f.md`;
    expect(await executeCommand(store, { command: "create", path: deep, file_text: "deep\n" })).toEqual({
      content: `File created successfully at: ${deep}`,
      isError: false,
    });
    const under = `${deep}/x.md`;
    expect((await executeCommand(store, { command: "create", path: under, file_text: "x" })).content).toBe(
      `Error: Cannot create ${under}: ${deep} is a file, not a directory`,
    );
  });
});
