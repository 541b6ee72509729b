import { ConflictError, executeCommand } from "@mem/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AnthropicMemoryStore } from "../src/index.js";
import { type Hosted, requestsOf, startHosted } from "./helpers.js";

let hosted: Hosted;
beforeAll(async () => {
  hosted = await startHosted();
});
afterAll(() => hosted.server.close());
afterEach(() => hosted.server.clearFaults());

const text = (data: Uint8Array | undefined) => new TextDecoder().decode(data);
const versionsOf = (storeId: string) => [...(hosted.server.model.store(storeId).versions ?? [])];

describe("conditional writes between two clients", () => {
  it("a write at a stale content_sha256 gets a 409 and becomes a ConflictError", async () => {
    const a = hosted.store();
    const b = hosted.store({ memoryStoreId: a.memoryStoreId, key: "session-key" });
    await executeCommand(a, { command: "create", path: "/memories/f", file_text: "0" });
    const seen = await a.read("/memories/f");
    await executeCommand(b, { command: "str_replace", path: "/memories/f", old_str: "0", new_str: "b" });
    const routes = await requestsOf(hosted.server, async () => {
      await expect(
        a.write("/memories/f", new TextEncoder().encode("a"), { ifVersion: seen?.version as string }),
      ).rejects.toBeInstanceOf(ConflictError);
    });
    expect(routes).toEqual(["POST memories/{id}"]);
    expect(hosted.server.requests.at(-1)?.status).toBe(409);
    expect(text((await a.read("/memories/f"))?.data)).toBe("b");
  });

  it("loses no update when two clients edit one file at once (updateWithRetry retries the 409s)", async () => {
    const a = hosted.store();
    const b = hosted.store({ memoryStoreId: a.memoryStoreId, key: "other" });
    await executeCommand(a, { command: "create", path: "/memories/log", file_text: "" });
    const edits = Array.from({ length: 20 }, (_, i) =>
      executeCommand(i % 2 ? b : a, {
        command: "insert",
        path: "/memories/log",
        insert_line: 0,
        insert_text: `${i}`,
      }),
    );
    const results = await Promise.all(edits);
    expect(results.every((r) => !r.isError)).toBe(true);
    const lines = text((await a.read("/memories/log"))?.data)
      .split("\n")
      .filter(Boolean);
    expect(lines.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `${i}`).sort());
    expect(hosted.server.requests.some((r) => r.status === 409)).toBe(true);
  });

  it("a create on a path another client took is `already exists`", async () => {
    const a = hosted.store();
    const b = hosted.store({ memoryStoreId: a.memoryStoreId, key: "other" });
    await executeCommand(b, { command: "create", path: "/memories/x", file_text: "b" });
    const result = await executeCommand(a, { command: "create", path: "/memories/x", file_text: "a" });
    expect(result.content).toBe("Error: File /memories/x already exists");
  });
});

describe("lost answers (SPEC §5)", () => {
  it("a create whose answer was lost comes back as a path conflict on our own write: success, applied once", async () => {
    const store = hosted.store();
    hosted.server.inject("POST memories", "drop-answer");
    const routes = await requestsOf(hosted.server, async () => {
      const result = await executeCommand(store, {
        command: "create",
        path: "/memories/c",
        file_text: "mine",
      });
      expect(result).toMatchObject({ isError: false, content: "File created successfully at: /memories/c" });
    });
    // The lost create, its repeat refused with 409, then the memory there compared by content_sha256.
    expect(routes).toEqual(["POST memories", "POST memories", "GET memories/{id}"]);
    expect(versionsOf(store.memoryStoreId).map((v) => v.operation)).toEqual(["created"]);
  });

  it("a create refused because another writer put different content there is still `already exists`", async () => {
    const store = hosted.store();
    const other = hosted.store({ memoryStoreId: store.memoryStoreId, key: "other" });
    await executeCommand(other, { command: "create", path: "/memories/c", file_text: "theirs" });
    hosted.server.inject("POST memories", "reset");
    const result = await executeCommand(store, { command: "create", path: "/memories/c", file_text: "mine" });
    expect(result.content).toBe("Error: File /memories/c already exists");
  });

  it("an edit whose answer was lost is recognised by the API as its own repeat: applied once", async () => {
    const store = hosted.store();
    await executeCommand(store, { command: "create", path: "/memories/e", file_text: "a\n" });
    hosted.server.inject("POST memories/{id}", "drop-answer");
    const result = await executeCommand(store, {
      command: "insert",
      path: "/memories/e",
      insert_line: 1,
      insert_text: "b",
    });
    expect(result).toMatchObject({ isError: false, content: "The file /memories/e has been edited." });
    expect(text((await store.read("/memories/e"))?.data)).toBe("a\nb\n");
    expect(versionsOf(store.memoryStoreId).map((v) => v.operation)).toEqual(["created", "modified"]);
  });

  it("a delete whose answer was lost is a success, not `does not exist`", async () => {
    const store = hosted.store();
    await executeCommand(store, { command: "create", path: "/memories/d", file_text: "x" });
    hosted.server.inject("DELETE memories/{id}", "drop-answer");
    const result = await executeCommand(store, { command: "delete", path: "/memories/d" });
    expect(result.content).toBe("Successfully deleted /memories/d");
  });

  it("says the change may still be applied when every attempt lost its answer", async () => {
    const store = hosted.store({ attempts: 2 });
    hosted.server.inject("POST memories", "reset", { times: 2 });
    const result = await executeCommand(store, { command: "create", path: "/memories/u", file_text: "x" });
    expect(result.content).toBe(
      "Error: create failed for /memories/u: connection failed. The change may still be applied; view /memories/u to check.",
    );
  });
});

describe("directory renames", () => {
  it("an interrupted rename loses nothing, and running it again completes it", async () => {
    const store = hosted.store({ attempts: 1 });
    for (const name of ["a", "b", "c", "d"])
      await executeCommand(store, { command: "create", path: `/memories/dir/${name}`, file_text: name });
    // The third move fails for good.
    hosted.server.inject("POST memories/{id}", "fail", { after: 2 });
    const stopped = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/dir",
      new_path: "/memories/moved",
    });
    expect(stopped.isError).toBe(true);
    const files = (await store.files()).map((f) => f.path).sort();
    expect(files).toHaveLength(4);
    expect(files).toEqual(["/memories/dir/c", "/memories/dir/d", "/memories/moved/a", "/memories/moved/b"]);
    const again = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/dir",
      new_path: "/memories/moved",
    });
    expect(again.content).toBe("Successfully renamed /memories/dir to /memories/moved");
    expect((await store.files()).map((f) => f.path).sort()).toEqual(
      ["a", "b", "c", "d"].map((n) => `/memories/moved/${n}`),
    );
    for (const n of ["a", "b", "c", "d"])
      expect(text((await store.read(`/memories/moved/${n}`))?.data)).toBe(n);
    // The journal is gone: nothing but the four memories in the hosted store.
    expect(hosted.server.model.store(store.memoryStoreId).paths.size).toBe(4);
  });

  it("recover() completes a rename left half done by another process", async () => {
    const store = hosted.store({ attempts: 1 });
    for (const name of ["a", "b", "c"])
      await executeCommand(store, { command: "create", path: `/memories/x/${name}`, file_text: name });
    hosted.server.inject("POST memories/{id}", "reset", { after: 1 });
    expect(
      (await executeCommand(store, { command: "rename", old_path: "/memories/x", new_path: "/memories/y" }))
        .isError,
    ).toBe(true);
    const other = new AnthropicMemoryStore({
      client: hosted.client("other"),
      memoryStoreId: store.memoryStoreId,
    });
    await other.recover();
    expect((await other.files()).map((f) => f.path).sort()).toEqual([
      "/memories/y/a",
      "/memories/y/b",
      "/memories/y/c",
    ]);
  });

  it("a file rename keeps the memory's id and versions", async () => {
    const store = hosted.store();
    await executeCommand(store, { command: "create", path: "/memories/one", file_text: "1" });
    const [before] = hosted.server.model.store(store.memoryStoreId).memories.keys();
    await executeCommand(store, {
      command: "rename",
      old_path: "/memories/one",
      new_path: "/memories/sub/two",
    });
    const model = hosted.server.model.store(store.memoryStoreId);
    expect([...model.memories.keys()]).toEqual([before]);
    expect(model.paths.get("/sub/two")).toBe(before);
  });
});
