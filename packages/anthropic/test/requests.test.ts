import { executeCommand } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Hosted, requestsOf, startHosted } from "./helpers.js";

let hosted: Hosted;
beforeAll(async () => {
  hosted = await startHosted();
});
afterAll(() => hosted.server.close());

describe("requests per tool command", () => {
  it("follows listing pages: a directory of 250 files costs one request per 100", async () => {
    const store = hosted.store();
    for (let i = 0; i < 250; i++)
      await executeCommand(store, { command: "create", path: `/memories/d/f${i}`, file_text: "x" });
    const routes = await requestsOf(hosted.server, async () => {
      const result = await executeCommand(store, { command: "view", path: "/memories" });
      expect(result.content.split("\n").slice(0, 3)).toEqual([
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
        "250B\t/memories",
        "250B\t/memories/d/",
      ]);
    });
    expect(routes).toEqual(["GET memories", "GET memories", "GET memories"]);
  });

  it("costs what the README states", async () => {
    const start = hosted.server.requests.length;
    const store = hosted.store();
    const run = (input: Record<string, unknown>) =>
      requestsOf(hosted.server, async () => {
        const result = await executeCommand(store, input);
        expect(result.isError, result.content).toBe(false);
      });
    const counts: Record<string, string[]> = {};
    counts.create = await run({ command: "create", path: "/memories/notes/a.md", file_text: "one\ntwo\n" });
    await run({ command: "create", path: "/memories/notes/b.md", file_text: "b\n" });
    counts.viewFileCached = await run({ command: "view", path: "/memories/notes/a.md" });
    counts.strReplace = await run({
      command: "str_replace",
      path: "/memories/notes/a.md",
      old_str: "one",
      new_str: "1",
    });
    counts.insert = await run({
      command: "insert",
      path: "/memories/notes/a.md",
      insert_line: 0,
      insert_text: "z",
    });
    counts.viewDir = await run({ command: "view", path: "/memories/notes" });
    counts.viewRoot = await run({ command: "view", path: "/memories" });
    counts.renameFile = await run({
      command: "rename",
      old_path: "/memories/notes/b.md",
      new_path: "/memories/b.md",
    });
    counts.deleteFile = await run({ command: "delete", path: "/memories/b.md" });
    const fresh = hosted.store({ memoryStoreId: store.memoryStoreId });
    counts.viewFileUncached = await requestsOf(hosted.server, () =>
      executeCommand(fresh, { command: "view", path: "/memories/notes/a.md" }),
    );
    counts.renameDir = await run({ command: "rename", old_path: "/memories/notes", new_path: "/memories/n" });
    expect(counts).toEqual({
      create: ["POST memories"],
      // Once the path's id is cached, a file view is one retrieve.
      viewFileCached: ["GET memories/{id}"],
      // Edits: the read with its content_sha256, then the conditional update.
      strReplace: ["GET memories/{id}", "POST memories/{id}"],
      insert: ["GET memories/{id}", "POST memories/{id}"],
      // A directory: its parent's listing tells what it is, then one listing of everything below it.
      viewDir: ["GET memories", "GET memories"],
      viewRoot: ["GET memories"],
      // A file rename is one update of the memory's path.
      renameFile: ["GET memories", "POST memories/{id}"],
      deleteFile: ["GET memories/{id}", "DELETE memories/{id}"],
      viewFileUncached: ["GET memories", "GET memories/{id}"],
      // Find the directory, the journals, the destination; write the journal; list; move each; drop the journal.
      renameDir: [
        "GET memories",
        "GET memories",
        "GET memories",
        "POST memories",
        "GET memories",
        "POST memories/{id}",
        "DELETE memories/{id}",
      ],
    });
    expect(store.requestCount).toBe(hosted.server.requests.length - start - fresh.requestCount);
  });
});
