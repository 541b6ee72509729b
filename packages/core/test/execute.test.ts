import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ConflictError,
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  type MemoryStore,
  StoreFailureError,
} from "../src/index.js";

/** A store that forwards to `inner` except for the methods given. */
const wrap = (inner: MemoryStore, overrides: Partial<MemoryStore>): MemoryStore =>
  Object.assign(new ForwardingStore(inner), overrides);

const run = (store: MemoryStore, input: unknown, options = {}) => executeCommand(store, input, options);
const okResult = (content: string) => ({ content, isError: false });
const errResult = (content: string) => ({ content, isError: true });

describe("executeCommand", () => {
  it("reproduces the documented interaction", async () => {
    const store = new InMemoryStore();
    const guidelines =
      "<guidelines>\n<addressing_customers>\n- Always address customers by their first name\n- Use empathetic language\n";
    expect(
      await run(store, {
        command: "create",
        path: "/memories/customer_service_guidelines.xml",
        file_text: guidelines,
      }),
    ).toEqual(okResult("File created successfully at: /memories/customer_service_guidelines.xml"));
    expect(
      await run(store, {
        command: "view",
        path: "/memories/customer_service_guidelines.xml",
        view_range: [1, 4],
      }),
    ).toEqual(
      okResult(
        "Here's the content of /memories/customer_service_guidelines.xml with line numbers:\n     1\t<guidelines>\n     2\t<addressing_customers>\n     3\t- Always address customers by their first name\n     4\t- Use empathetic language",
      ),
    );
  });

  it("runs every command with its success text", async () => {
    const store = new InMemoryStore();
    expect(
      await run(store, { command: "create", path: "/memories/a/b.txt", file_text: "one\ntwo\n" }),
    ).toEqual(okResult("File created successfully at: /memories/a/b.txt"));
    expect(
      await run(store, {
        command: "insert",
        path: "/memories/a/b.txt",
        insert_line: 2,
        insert_text: "three\n",
      }),
    ).toEqual(okResult("The file /memories/a/b.txt has been edited."));
    expect(
      await run(store, { command: "str_replace", path: "/memories/a/b.txt", old_str: "two", new_str: "2" }),
    ).toEqual(
      okResult(
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tone\n     2\t2\n     3\tthree",
      ),
    );
    expect(
      await run(store, { command: "rename", old_path: "/memories/a", new_path: "/memories/c/d" }),
    ).toEqual(okResult("Successfully renamed /memories/a to /memories/c/d"));
    expect(await run(store, { command: "view", path: "/memories" })).toEqual(
      okResult(
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n12B\t/memories\n12B\t/memories/c/\n12B\t/memories/c/d/",
      ),
    );
    expect(await run(store, { command: "delete", path: "/memories/c" })).toEqual(
      okResult("Successfully deleted /memories/c"),
    );
    expect(await store.stat("/memories/c")).toBeNull();
  });

  it("gives each command's errors", async () => {
    const store = new InMemoryStore();
    await run(store, { command: "create", path: "/memories/f", file_text: "x\n" });
    expect(await run(store, { command: "create", path: "/memories/f", file_text: "" })).toEqual(
      errResult("Error: File /memories/f already exists"),
    );
    expect(await run(store, { command: "create", path: "/memories", file_text: "" })).toEqual(
      errResult("Error: File /memories already exists"),
    );
    expect(await run(store, { command: "create", path: "/memories/f/g", file_text: "" })).toEqual(
      errResult("Error: Cannot create /memories/f/g: /memories/f is a file, not a directory"),
    );
    expect(
      await run(
        store,
        { command: "create", path: "/memories/big", file_text: "x".repeat(11) },
        { maxFileBytes: 10 },
      ),
    ).toEqual(errResult("Error: File /memories/big would be 11 bytes, which exceeds the limit of 10 bytes"));
    expect(await run(store, { command: "view", path: "/memories/nope" })).toEqual(
      errResult("The path /memories/nope does not exist. Please provide a valid path."),
    );
    expect(await run(store, { command: "view", path: "/memories", view_range: [1, 2] })).toEqual(
      errResult("Error: The `view_range` parameter is not allowed when `path` points to a directory."),
    );
    expect(await run(store, { command: "str_replace", path: "/memories/nope", old_str: "a" })).toEqual(
      errResult("Error: The path /memories/nope does not exist. Please provide a valid path."),
    );
    expect(await run(store, { command: "str_replace", path: "/memories", old_str: "a" })).toEqual(
      errResult("Error: The path /memories does not exist. Please provide a valid path."),
    );
    expect(
      await run(
        store,
        { command: "str_replace", path: "/memories/f", old_str: "x", new_str: "y".repeat(11) },
        { maxFileBytes: 10 },
      ),
    ).toEqual(errResult("Error: File /memories/f would be 12 bytes, which exceeds the limit of 10 bytes"));
    expect(
      await run(store, { command: "insert", path: "/memories/nope", insert_line: 0, insert_text: "" }),
    ).toEqual(errResult("Error: The path /memories/nope does not exist"));
    expect(await run(store, { command: "delete", path: "/memories" })).toEqual(
      errResult("Error: Cannot delete the /memories directory itself"),
    );
    expect(await run(store, { command: "delete", path: "/memories/nope" })).toEqual(
      errResult("Error: The path /memories/nope does not exist"),
    );
    expect(await run(store, { command: "rename", old_path: "/memories", new_path: "/memories/x" })).toEqual(
      errResult("Error: Cannot rename the /memories directory itself"),
    );
    expect(await run(store, { command: "rename", old_path: "/memories/f", new_path: "/memories/" })).toEqual(
      errResult("Error: Cannot rename the /memories directory itself"),
    );
    expect(
      await run(store, { command: "rename", old_path: "/memories/nope", new_path: "/memories/x" }),
    ).toEqual(errResult("Error: The path /memories/nope does not exist"));
    expect(await run(store, { command: "rename", old_path: "/memories/f", new_path: "/memories/f" })).toEqual(
      errResult("Error: The destination /memories/f already exists"),
    );
    expect(
      await run(store, { command: "rename", old_path: "/memories/f", new_path: "/memories/f/g" }),
    ).toEqual(errResult("Error: Cannot move /memories/f into itself"));
    await run(store, { command: "create", path: "/memories/d/x", file_text: "" });
    expect(
      await run(store, { command: "rename", old_path: "/memories/d", new_path: "/memories/f/g" }),
    ).toEqual(errResult("Error: Cannot rename to /memories/f/g: /memories/f is a file, not a directory"));
  });

  it("refuses non-UTF-8 files", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/img.bin", new Uint8Array([0x89, 0x50, 0xff, 0xfe]), { ifAbsent: true });
    const error = errResult("Error: The file /memories/img.bin is not a UTF-8 text file");
    expect(await run(store, { command: "view", path: "/memories/img.bin" })).toEqual(error);
    expect(
      await run(store, { command: "insert", path: "/memories/img.bin", insert_line: 0, insert_text: "x" }),
    ).toEqual(error);
    expect(await run(store, { command: "str_replace", path: "/memories/img.bin", old_str: "P" })).toEqual(
      error,
    );
  });

  it("turns storage failures into error results that keep secrets out", async () => {
    const store = new InMemoryStore();
    const failing = wrap(store, {
      read: async () => {
        throw new StoreFailureError("connection refused");
      },
      stat: async () => {
        throw Object.assign(new Error("connect ECONNREFUSED redis://user:hunter2@10.0.0.1"), {
          code: "ECONNREFUSED",
        });
      },
      rename: async () => {
        throw Object.assign(new Error("connect ECONNREFUSED redis://user:hunter2@10.0.0.1"), {
          code: "ECONNREFUSED",
        });
      },
      delete: async () => {
        throw new TypeError("secret token abc123 leaked");
      },
    });
    expect(await run(failing, { command: "view", path: "/memories/a" })).toEqual(
      errResult("Error: view failed for /memories/a: connection refused"),
    );
    expect(
      await run(failing, { command: "rename", old_path: "/memories/a", new_path: "/memories/b" }),
    ).toEqual(errResult("Error: rename failed for /memories/a: connection refused"));
    expect(await run(failing, { command: "delete", path: "/memories/a" })).toEqual(
      errResult("Error: delete failed for /memories/a: unexpected storage error"),
    );
  });

  it("hands the cause of a generic reason to onUnexpectedError, and typed failures not at all", async () => {
    const seen: unknown[] = [];
    const onUnexpectedError = (error: unknown) => {
      seen.push(error);
      throw new Error("the hook's own failure is ignored");
    };
    const cause = new TypeError("socket pool exhausted");
    const store = wrap(new InMemoryStore(), {
      delete: async () => {
        throw cause;
      },
      read: async () => {
        throw new StoreFailureError("connection refused");
      },
    });
    expect(await run(store, { command: "delete", path: "/memories/a" }, { onUnexpectedError })).toEqual(
      errResult("Error: delete failed for /memories/a: unexpected storage error"),
    );
    expect(seen).toEqual([cause]);
    await run(store, { command: "view", path: "/memories/a" }, { onUnexpectedError });
    await run(store, { command: "view", path: "/nope" }, { onUnexpectedError });
    expect(seen).toEqual([cause]);
  });

  it("says a change may still be applied when the store cannot know (SPEC §5)", async () => {
    const store = new InMemoryStore();
    const uncertain = wrap(store, {
      write: async () => {
        throw new StoreFailureError("timed out", { mayBeApplied: true });
      },
    });
    expect(await run(uncertain, { command: "create", path: "/memories/a", file_text: "x" })).toEqual(
      errResult(
        "Error: create failed for /memories/a: timed out. The change may still be applied; view /memories/a to check.",
      ),
    );
    const certain = wrap(store, {
      write: async () => {
        throw new StoreFailureError("timed out");
      },
    });
    expect(await run(certain, { command: "create", path: "/memories/a", file_text: "x" })).toEqual(
      errResult("Error: create failed for /memories/a: timed out"),
    );
  });

  it("retries an edit that lost a race and gives up after the bound", async () => {
    const store = new InMemoryStore();
    await run(store, { command: "create", path: "/memories/f", file_text: "a\n" });
    let conflicts = 2;
    const flaky = wrap(store, {
      write: async (path, data, cond) => {
        if (conflicts-- > 0) throw new ConflictError(path);
        return store.write(path, data, cond);
      },
    });
    expect(
      (await run(flaky, { command: "insert", path: "/memories/f", insert_line: 1, insert_text: "b" }))
        .isError,
    ).toBe(false);
    expect(new TextDecoder().decode((await store.read("/memories/f"))!.data)).toBe("a\nb\n");
    conflicts = 1000;
    expect(
      await run(
        flaky,
        { command: "insert", path: "/memories/f", insert_line: 0, insert_text: "c" },
        { conflictRetries: 3 },
      ),
    ).toEqual(
      errResult(
        "Error: insert failed for /memories/f: the file kept changing under concurrent edits; nothing was written, try again",
      ),
    );
    expect(new TextDecoder().decode((await store.read("/memories/f"))!.data)).toBe("a\nb\n");
  });

  it("loses no concurrent edit", async () => {
    const store = new InMemoryStore();
    await run(store, { command: "create", path: "/memories/log", file_text: "" });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        run(store, { command: "insert", path: "/memories/log", insert_line: 0, insert_text: `entry ${i}` }),
      ),
    );
    expect(results.every((r) => !r.isError)).toBe(true);
    const text = new TextDecoder().decode((await store.read("/memories/log"))!.data);
    expect(text.split("\n").filter(Boolean).sort()).toEqual(
      Array.from({ length: 60 }, (_, i) => `entry ${i}`).sort(),
    );
  });

  it("takes each limit option from 0 up, and the default for any other value", async () => {
    const store = new InMemoryStore();
    await run(store, { command: "create", path: "/memories/d/a.md", file_text: "alpha\n" });
    await run(store, { command: "create", path: "/memories/d/b.md", file_text: "beta\n" });
    const listing = { command: "view", path: "/memories/d" };
    const big = { command: "create", path: "/memories/e.md", file_text: "0123456789" };
    const unlimited = (await run(store, listing)).content;
    expect((await run(store, listing, { listLimit: 1 })).content).not.toBe(unlimited);
    expect(await run(store, big, { maxFileBytes: 5 })).toEqual(
      errResult("Error: File /memories/e.md would be 10 bytes, which exceeds the limit of 5 bytes"),
    );
    for (const bad of [-1, Number.NaN, "1", null]) {
      expect((await run(store, listing, { listLimit: bad })).content, String(bad)).toBe(unlimited);
      expect(
        (await run(store, { ...big, path: `/memories/e${String(bad)}.md` }, { maxFileBytes: bad })).isError,
      ).toBe(false);
    }
  });

  it("never throws, whatever the input", async () => {
    const store = new InMemoryStore();
    await run(store, { command: "create", path: "/memories/f", file_text: "a\n" });
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        fc.constantFrom("view", "create", "str_replace", "insert", "delete", "rename"),
        async (junk, command) => {
          const mixed =
            typeof junk === "object" && junk !== null && !Array.isArray(junk) ? { command, ...junk } : junk;
          const result = await run(store, mixed);
          expect(typeof result.content).toBe("string");
          expect(typeof result.isError).toBe("boolean");
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("executeCommand with input that is not plain JSON", () => {
  it("answers a throwing getter with an error result", async () => {
    const store = new InMemoryStore();
    const hostile = {
      command: "create",
      get path(): string {
        throw new Error("boom");
      },
    };
    expect(await executeCommand(store, hostile)).toEqual({
      content: "Error: The memory tool failed unexpectedly",
      isError: true,
    });
    const proxy = new Proxy(
      {},
      {
        get: () => {
          throw new Error("trap");
        },
        has: () => true,
        getOwnPropertyDescriptor: () => {
          throw new Error("trap");
        },
      },
    );
    expect((await executeCommand(store, proxy)).isError).toBe(true);
    expect(await store.list("/memories", 2)).toEqual({ size: 0, entries: [] });
  });
});

describe("executeCommand with a store's native atomic update", () => {
  /** InMemoryStore plus an `update` that runs read → change → write as one step. */
  const withUpdate = (inner: InMemoryStore, calls: { updates: number; writes: number }): MemoryStore =>
    wrap(inner, {
      write: (p, d, c) => {
        calls.writes++;
        return inner.write(p, d, c);
      },
      update: async (path, change) => {
        calls.updates++;
        const file = await inner.read(path);
        if (!file) return false;
        const next = change(file.data);
        if (next) await inner.write(path, next, { ifVersion: file.version });
        return true;
      },
    });

  it("edits through update, never through a conditional write of its own", async () => {
    const inner = new InMemoryStore();
    const calls = { updates: 0, writes: 0 };
    const store = withUpdate(inner, calls);
    await run(store, { command: "create", path: "/memories/f", file_text: "a\nb\n" });
    expect(
      await run(store, { command: "str_replace", path: "/memories/f", old_str: "b", new_str: "c" }),
    ).toEqual(
      okResult(
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\ta\n     2\tc",
      ),
    );
    expect(
      await run(store, { command: "insert", path: "/memories/f", insert_line: 0, insert_text: "z" }),
    ).toEqual(okResult("The file /memories/f has been edited."));
    expect(calls).toEqual({ updates: 2, writes: 1 });
    expect(new TextDecoder().decode((await inner.read("/memories/f"))!.data)).toBe("z\na\nc\n");
  });

  it("writes nothing when the edit fails, and reports a missing file", async () => {
    const inner = new InMemoryStore();
    const store = withUpdate(inner, { updates: 0, writes: 0 });
    await run(store, { command: "create", path: "/memories/f", file_text: "a\n" });
    const before = await inner.read("/memories/f");
    expect(await run(store, { command: "str_replace", path: "/memories/f", old_str: "q" })).toEqual(
      errResult("No replacement was performed, old_str `q` did not appear verbatim in /memories/f."),
    );
    expect(
      await run(
        store,
        { command: "insert", path: "/memories/f", insert_line: 0, insert_text: "x".repeat(20) },
        { maxFileBytes: 10 },
      ),
    ).toEqual(errResult("Error: File /memories/f would be 23 bytes, which exceeds the limit of 10 bytes"));
    expect((await inner.read("/memories/f"))!.version).toBe(before!.version);
    expect(
      await run(store, { command: "insert", path: "/memories/nope", insert_line: 0, insert_text: "x" }),
    ).toEqual(errResult("Error: The path /memories/nope does not exist"));
  });
});
