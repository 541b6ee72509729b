import { runInDurableObject } from "cloudflare:test";
import { executeCommand, type MemoryStore } from "@mem/core";
import { describe, expect, it } from "vitest";
import { D1Store, DurableObjectStore } from "../src/index.js";
import { bindings, freshName } from "./helpers.js";

const deepPath = `/memories/${Array.from({ length: 300 }, (_, i) => `d${i % 10}`).join("/")}/f.md`;

/**
 * A trigger that makes the runtime's SQLite exceed its largest string or BLOB (SQLITE_TOOBIG: workerd
 * refuses 1,000,000,000 bytes) when a file named `toobig*` is written: the limit is the runtime's own,
 * raised inside the statement the store runs.
 */
const TOOBIG_TRIGGER = `CREATE TRIGGER IF NOT EXISTS test_toobig BEFORE INSERT ON mem_files
  WHEN NEW.path GLOB '*/toobig*' BEGIN SELECT length(zeroblob(1000000000)); END`;

/** The command hits the limit: the failure result naming the store, and nothing of it is written. */
async function limitIsAFailure(store: MemoryStore, name: string) {
  await executeCommand(store, { command: "create", path: "/memories/kept.md", file_text: "kept\n" });
  const before = await executeCommand(store, { command: "view", path: "/memories" });
  const usage = await store.usage?.();
  const result = await executeCommand(store, {
    command: "create",
    path: "/memories/dir/toobig.md",
    file_text: "too big\n",
  });
  expect(result).toEqual({
    content: `Error: create failed for /memories/dir/toobig.md: ${name} row size limit reached`,
    isError: true,
  });
  expect(await executeCommand(store, { command: "view", path: "/memories" })).toEqual(before);
  expect(await store.usage?.()).toEqual(usage);
  expect(await store.stat("/memories/dir")).toBeNull();
  // The store goes on working.
  expect(
    (await executeCommand(store, { command: "create", path: "/memories/ok.md", file_text: "ok" })).isError,
  ).toBe(false);
}

describe("limits of the runtime's storage", () => {
  it("Durable Object: a path of 300 levels stays within the 100 bound parameters of a statement", async () => {
    const store = new DurableObjectStore(bindings.MEMORY, { name: freshName() }).scope("t");
    expect(await store.execute({ command: "create", path: deepPath, file_text: "deep\n" })).toEqual({
      content: `File created successfully at: ${deepPath}`,
      isError: false,
    });
    const under = `${deepPath}/x.md`;
    expect((await store.execute({ command: "create", path: under, file_text: "x" })).content).toBe(
      `Error: Cannot create ${under}: ${deepPath} is a file, not a directory`,
    );
  });

  it("D1: SQLITE_TOOBIG inside the write's batch answers the failure result; the batch left nothing", async () => {
    await bindings.LIMITS.prepare("SELECT 1").run();
    const store = new D1Store(bindings.LIMITS).scope(freshName());
    await store.usage();
    await bindings.LIMITS.prepare(TOOBIG_TRIGGER).run();
    const versions = await bindings.LIMITS.prepare(
      "SELECT value FROM mem_meta WHERE key = 'versions'",
    ).first();
    await limitIsAFailure(store, "D1");
    // The version counter the batch bumped before the failing INSERT went back with it (one more for ok.md).
    const after = await bindings.LIMITS.prepare("SELECT value FROM mem_meta WHERE key = 'versions'").first();
    expect((after?.value as number) - (versions?.value as number)).toBe(2);
  });

  it("Durable Object: SQLITE_TOOBIG inside the command answers the failure result naming the store", async () => {
    const name = freshName();
    const store = new DurableObjectStore(bindings.MEMORY, { name }).scope("t");
    await store.usage();
    const stub = bindings.MEMORY.get(bindings.MEMORY.idFromName(`${name}/t`));
    await runInDurableObject(stub, (_instance, state: DurableObjectState) => {
      state.storage.sql.exec(TOOBIG_TRIGGER);
    });
    await limitIsAFailure(store, "Durable Object");
  });
});
