import { executeCommand } from "@mem/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { TestPostgres } from "./helpers.js";

// An application may change node-postgres's process-wide parsers (pg.types.setTypeParser); every query of
// every pool then uses them, the store's included unless it brings its own. These overrides are the ones
// that changed what the store read: booleans left as text, bytea as a string, int4 as something else.
const OVERRIDES: [number, (value: string) => unknown][] = [
  [16, (value) => value], // bool as 't' / 'f'
  [17, (value) => value], // bytea as its hex text
  [20, (value) => BigInt(value)], // int8 as BigInt, a common choice
  [23, (value) => `int4:${value}`],
];
const saved = OVERRIDES.map(([oid]) => [oid, pg.types.getTypeParser(oid, "text")] as const);

let db: TestPostgres;
beforeAll(async () => {
  db = await TestPostgres.start();
  for (const [oid, parse] of OVERRIDES) pg.types.setTypeParser(oid, parse);
});
afterAll(async () => {
  for (const [oid, parse] of saved) pg.types.setTypeParser(oid, parse);
  await db?.stop();
});

describe("the application's global type parsers", () => {
  it("change nothing the store reads: results, binary files, totals, tenants and the schema check", async () => {
    const table = db.freshTable();
    // A new table: the schema check reads a boolean (is the table there?) and the version.
    const root = new PostgresStore({ pool: db.pool(), table });
    const store = root.scope("t");
    const run = async (input: Record<string, unknown>) => (await executeCommand(store, input)).content;
    expect(await run({ command: "create", path: "/memories/a/b.md", file_text: "one\ntwo\n" })).toBe(
      "File created successfully at: /memories/a/b.md",
    );
    expect(await run({ command: "view", path: "/memories" })).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n8B\t/memories\n8B\t/memories/a/\n8B\t/memories/a/b.md",
    );
    expect(await run({ command: "view", path: "/memories/a/b.md", view_range: [2, 2] })).toBe(
      "Here's the content of /memories/a/b.md with line numbers:\n     2\ttwo",
    );
    expect(
      await run({ command: "str_replace", path: "/memories/a/b.md", old_str: "one", new_str: "1" }),
    ).toContain("The memory file has been edited.");
    expect(await run({ command: "rename", old_path: "/memories/a", new_path: "/memories/c" })).toBe(
      "Successfully renamed /memories/a to /memories/c",
    );
    expect(await run({ command: "delete", path: "/memories/c/b.md" })).toBe(
      "Successfully deleted /memories/c/b.md",
    );
    // Bytes that are not UTF-8 travel as bytea.
    const binary = new Uint8Array([0, 255, 1, 254, 10]);
    await store.write("/memories/bin", binary, { ifAbsent: true });
    expect((await store.read("/memories/bin"))?.data).toEqual(binary);
    expect(await store.usage()).toEqual({ files: 1, bytes: 5 });
    expect(await store.files()).toEqual([{ path: "/memories/bin", size: 5 }]);
    const tenants = await root.tenants();
    expect(tenants.tenants.map(({ id, files, bytes: held }) => ({ id, files, bytes: held }))).toEqual([
      { id: "t", files: 1, bytes: 5 },
    ]);
    // Opening the table again finds it current (the boolean and the version read right).
    const again = new PostgresStore({ pool: db.pool(), table });
    await again.check();
    expect((await again.scope("t").read("/memories/bin"))?.data).toEqual(binary);
  });
});
