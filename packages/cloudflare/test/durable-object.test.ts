import { runInDurableObject } from "cloudflare:test";
import { loadGoldenTranscripts, playTranscript } from "@mem/conformance";
import { executeCommand } from "@mem/core";
import { describe, expect, it } from "vitest";
import { DurableObjectStore, memoryTool } from "../src/index.js";
import { bindings, countingNamespace, freshName } from "./helpers.js";

describe("DurableObjectStore.execute: the command runs inside the object", () => {
  for (const transcript of loadGoldenTranscripts()) {
    it(`golden transcript ${transcript.name}`, async () => {
      const store = new DurableObjectStore(bindings.MEMORY, { name: freshName() }).scope("t");
      await playTranscript(store, transcript, (input, options) => store.execute(input, options));
    });
  }

  it("costs one RPC per tool call, whatever the command", async () => {
    const { namespace, calls } = countingNamespace(bindings.MEMORY);
    const tool = memoryTool(namespace, "user-1", { name: freshName() });
    const inputs = [
      { command: "view", path: "/memories" },
      { command: "create", path: "/memories/a/notes.md", file_text: "one\ntwo\n" },
      { command: "str_replace", path: "/memories/a/notes.md", old_str: "one", new_str: "uno" },
      { command: "insert", path: "/memories/a/notes.md", insert_line: 2, insert_text: "three\n" },
      { command: "view", path: "/memories/a/notes.md" },
      { command: "rename", old_path: "/memories/a", new_path: "/memories/b" },
      { command: "view", path: "/memories" },
      { command: "delete", path: "/memories/b" },
      { command: "view", path: "/memories/missing.md" },
    ];
    const results = [];
    for (const input of inputs) results.push(await tool.run(input));
    expect(results.map((r) => r.isError)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      true,
    ]);
    expect(results[4]?.content).toBe(
      "Here's the content of /memories/a/notes.md with line numbers:\n     1\tuno\n     2\ttwo\n     3\tthree",
    );
    expect(Object.fromEntries(calls)).toEqual({ execute: inputs.length });
  });

  it("answers input that is not plain data in the Worker, without an RPC", async () => {
    const { namespace, calls } = countingNamespace(bindings.MEMORY);
    const store = new DurableObjectStore(namespace, { name: freshName() });
    const hostile = {
      command: "create",
      get path(): string {
        throw new Error("boom");
      },
    };
    const result = await store.execute(hostile);
    expect(result.isError).toBe(true);
    expect(result.content).toBe((await executeCommand(store, hostile)).content);
    expect((await store.execute({ command: "nope" })).content).toMatch(/^Error: Unknown command `nope`/);
    expect(calls.get("execute") ?? 0).toBe(0);
  });

  it("reports the change to onChange in the Worker, and carries the other options to the object", async () => {
    const store = new DurableObjectStore(bindings.MEMORY, { name: freshName() }).scope("t");
    const changes: unknown[] = [];
    const options = {
      maxFiles: 1,
      actor: "agent-7",
      onChange: (change: unknown) => {
        changes.push(change);
      },
    };
    expect(
      (await store.execute({ command: "create", path: "/memories/a.md", file_text: "a\n" }, options)).isError,
    ).toBe(false);
    const refused = await store.execute(
      { command: "create", path: "/memories/b.md", file_text: "b\n" },
      options,
    );
    expect(refused.content).toBe(
      "Error: Cannot create /memories/b.md: memory already holds 1 files, the limit is 1. Delete or merge files first.",
    );
    expect(changes).toMatchObject([{ command: "create", path: "/memories/a.md", actor: "agent-7" }]);
    await expect(store.execute({ command: "view", path: "/memories" }, { maxFiles: 0 })).rejects.toThrow(
      TypeError,
    );
    await expect(
      store.execute(
        { command: "view", path: "/memories" },
        { sensitive: { custom: [{ label: "x", test: /never/ }] } },
      ),
    ).rejects.toThrow(/sensitive\.custom/);
  });
});

describe("DurableObjectStore failures", () => {
  it("a missing binding answers the failure result naming the Durable Object, for every command", async () => {
    const tool = memoryTool(undefined, "user-1");
    expect(await tool.run({ command: "view", path: "/memories" })).toEqual({
      content:
        "Error: view failed for /memories: the Durable Object binding is missing (check the durable_objects of wrangler.toml)",
      isError: true,
    });
    const created = await tool.run({ command: "create", path: "/memories/a.md", file_text: "a" });
    expect(created.content).toBe(
      "Error: create failed for /memories/a.md: the Durable Object binding is missing (check the durable_objects of wrangler.toml)",
    );
    await expect(tool.store.read("/memories/a.md")).rejects.toMatchObject({ code: "STORE_FAILURE" });
  });

  it("a namespace of another class answers the failure result, and writes nothing", async () => {
    const wrong = memoryTool(bindings.OTHER, "user-1");
    const result = await wrong.run({ command: "create", path: "/memories/a.md", file_text: "a" });
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      "Error: create failed for /memories/a.md: the Durable Object binding is not a MemoryObject namespace",
    );
    const view = await wrong.run({ command: "view", path: "/memories" });
    expect(view.content).toBe(
      "Error: view failed for /memories: the Durable Object binding is not a MemoryObject namespace",
    );
  });

  it("an error of the object's storage is the failure result naming the Durable Object, from inside the object", async () => {
    const name = freshName();
    const store = new DurableObjectStore(bindings.MEMORY, { name }).scope("t");
    await store.execute({ command: "create", path: "/memories/a.md", file_text: "a\n" });
    // The object's table goes away under it: every statement of the store now fails in SQLite.
    const stub = bindings.MEMORY.get(bindings.MEMORY.idFromName(`${name}/t`));
    await runInDurableObject(stub, (_object, state: DurableObjectState) => {
      state.storage.sql.exec("DROP TABLE mem_files");
    });
    expect(await store.execute({ command: "view", path: "/memories/a.md" })).toEqual({
      content: "Error: view failed for /memories/a.md: Durable Object storage error",
      isError: true,
    });
  });

  it("expires files through the object's alarm, with no request to the object", async () => {
    const name = freshName();
    // Accessed two minutes ago by the Worker's clock, with a one-minute limit: the alarm is due now.
    const past = () => Date.now() - 120_000;
    const store = new DurableObjectStore(bindings.MEMORY, {
      name,
      expireAfterSeconds: 60,
      clock: past,
    }).scope("t");
    await store.execute({ command: "create", path: "/memories/a.md", file_text: "a\n" });
    // A store without expiry reads the object's files as they are, reclaiming nothing itself.
    const plain = new DurableObjectStore(bindings.MEMORY, { name }).scope("t");
    let left = await plain.files();
    for (let i = 0; i < 100 && left.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = await plain.files();
    }
    expect(left).toEqual([]);
  });
});
