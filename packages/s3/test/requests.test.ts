import { executeCommand } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type S3Fixture, startFixture } from "./helpers.js";

let fx: S3Fixture;

beforeAll(async () => {
  fx = await startFixture();
});

afterAll(async () => {
  await fx?.stop();
});

// The S3 requests one tool call makes, as documented in the README (core's call sequence included). The
// fixture's client has measured the server's conditions already; that check is counted in servers.test.ts.
const cases: { name: string; input: Record<string, unknown>; expected: Record<string, number> }[] = [
  { name: "view a file", input: { command: "view", path: "/memories/notes.md" }, expected: { GetObject: 1 } },
  { name: "view /memories", input: { command: "view", path: "/memories" }, expected: { ListObjectsV2: 1 } },
  {
    name: "view a directory",
    input: { command: "view", path: "/memories/dir" },
    expected: { ListObjectsV2: 1 },
  },
  {
    name: "view a file without an extension",
    input: { command: "view", path: "/memories/plain" },
    expected: { ListObjectsV2: 1, GetObject: 1 },
  },
  {
    name: "view a directory with an extension",
    input: { command: "view", path: "/memories/v1.2" },
    expected: { GetObject: 1, ListObjectsV2: 1 },
  },
  {
    name: "create at the top level",
    input: { command: "create", path: "/memories/new.md", file_text: "x" },
    expected: { ListObjectsV2: 1, PutObject: 1 },
  },
  {
    name: "create two levels down",
    input: { command: "create", path: "/memories/dir/sub/new.md", file_text: "x" },
    expected: { ListObjectsV2: 1, HeadObject: 2, PutObject: 1 },
  },
  {
    name: "str_replace",
    input: { command: "str_replace", path: "/memories/notes.md", old_str: "one", new_str: "uno" },
    expected: { GetObject: 1, PutObject: 1 },
  },
  {
    name: "insert",
    input: { command: "insert", path: "/memories/notes.md", insert_line: 0, insert_text: "zero\n" },
    expected: { GetObject: 1, PutObject: 1 },
  },
  {
    name: "rename a file",
    input: { command: "rename", old_path: "/memories/notes.md", new_path: "/memories/renamed.md" },
    expected: { ListObjectsV2: 2, CopyObject: 1, DeleteObject: 1 },
  },
  {
    name: "rename a directory of 3 files",
    input: { command: "rename", old_path: "/memories/dir", new_path: "/memories/moved" },
    expected: { ListObjectsV2: 3, PutObject: 1, CopyObject: 3, DeleteObjects: 1, DeleteObject: 1 },
  },
  {
    name: "delete a file",
    input: { command: "delete", path: "/memories/renamed.md" },
    expected: { ListObjectsV2: 1, DeleteObject: 1 },
  },
  {
    name: "delete a directory of 3 files",
    input: { command: "delete", path: "/memories/moved" },
    expected: { ListObjectsV2: 2, DeleteObjects: 1 },
  },
];

describe("requests per command", () => {
  it("makes the documented number of S3 requests", async () => {
    const store = fx.store();
    await executeCommand(store, { command: "create", path: "/memories/notes.md", file_text: "one\ntwo\n" });
    await executeCommand(store, { command: "create", path: "/memories/dir/a.md", file_text: "a" });
    await executeCommand(store, { command: "create", path: "/memories/dir/b.md", file_text: "b" });
    await executeCommand(store, { command: "create", path: "/memories/plain", file_text: "p" });
    await executeCommand(store, { command: "create", path: "/memories/v1.2/c.md", file_text: "c" });
    const measured: Record<string, Record<string, number>> = {};
    for (const { name, input } of cases) {
      fx.server.requests.reset();
      const result = await executeCommand(store, input);
      expect(result.isError, `${name}: ${result.content}`).toBe(false);
      measured[name] = fx.server.requests.counts();
    }
    expect(measured).toEqual(Object.fromEntries(cases.map((c) => [c.name, c.expected])));
  });
});
