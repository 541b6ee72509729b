import { runInDurableObject } from "cloudflare:test";
import { executeCommand, type MemoryStore } from "@mem/core";
import { describe, expect, it } from "vitest";
import { D1Store, DurableObjectStore } from "../src/index.js";
import { bindings, dumpD1, dumpObjects, freshName } from "./helpers.js";

const ERASING = "Error: This memory is being erased; nothing was changed.";

/** Every change to `store` answers the erasing message and changes nothing; reads still answer. */
async function refusesChanges(store: MemoryStore) {
  const before = await executeCommand(store, { command: "view", path: "/memories" });
  const changes = [
    { command: "create", path: "/memories/new.md", file_text: "new\n" },
    { command: "str_replace", path: "/memories/kept.md", old_str: "kept", new_str: "changed" },
    { command: "insert", path: "/memories/kept.md", insert_line: 0, insert_text: "first\n" },
    { command: "delete", path: "/memories/kept.md" },
    { command: "rename", old_path: "/memories/kept.md", new_path: "/memories/moved.md" },
  ];
  for (const input of changes) {
    expect(await executeCommand(store, input)).toEqual({ content: ERASING, isError: true });
  }
  expect(await executeCommand(store, { command: "view", path: "/memories/kept.md" })).toEqual({
    content: "Here's the content of /memories/kept.md with line numbers:\n     1\tkept",
    isError: false,
  });
  expect(await executeCommand(store, { command: "view", path: "/memories" })).toEqual(before);
}

/**
 * A purge interrupted after its fence went up (the fence put there by hand): the tenant and the
 * tenants nested in it refuse every change, answer reads, and the purge run again erases them and
 * takes the fence down.
 */
async function interruptedPurge(root: MemoryStore, fence: (tenant: string) => Promise<void>) {
  const tenant = root.scope?.("a") as MemoryStore;
  const nested = tenant.scope?.("b") as MemoryStore;
  const other = root.scope?.("other") as MemoryStore;
  for (const store of [tenant, nested, other]) {
    await executeCommand(store, { command: "create", path: "/memories/kept.md", file_text: "kept\n" });
  }
  await fence("a");
  await refusesChanges(tenant);
  await refusesChanges(nested);
  // Other tenants do not notice.
  expect((await executeCommand(other, { command: "delete", path: "/memories/kept.md" })).isError).toBe(false);
  expect(await tenant.purge?.()).toEqual({ files: 2, bytes: 10 });
  for (const store of [tenant, nested]) {
    expect((await store.list("/memories", 2))?.entries).toEqual([]);
    expect(
      await executeCommand(store, { command: "create", path: "/memories/again.md", file_text: "x" }),
    ).toEqual({ content: "File created successfully at: /memories/again.md", isError: false });
  }
}

/**
 * Writers creating files in a tenant nested in the purged one, all through the purge: each create lands
 * before the purge (and is erased), is refused, or lands after it and stays reachable (its tenant
 * listed by its parent). Nothing is left that the store no longer lists.
 */
async function nestedRace(root: MemoryStore, dump: () => Promise<{ key: string; value: string }[]>) {
  const tenant = root.scope?.("p") as MemoryStore;
  const marker = `nestedrace${freshName()}`;
  await executeCommand(tenant, { command: "create", path: "/memories/top.md", file_text: `${marker} top\n` });
  let purged = false;
  let n = 0;
  const answers: string[] = [];
  const writer = async (w: number) => {
    const nested = (root.scope?.("p") as MemoryStore).scope?.(`n${w}`) as MemoryStore;
    while (!purged) {
      const result = await executeCommand(nested, {
        command: "create",
        path: `/memories/f${n++}.md`,
        file_text: `${marker} ${w}\n`,
      });
      answers.push(result.content as string);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  };
  const running = Array.from({ length: 6 }, (_, w) => writer(w));
  while (answers.length < 12) await new Promise((resolve) => setTimeout(resolve, 1));
  await tenant.purge?.();
  purged = true;
  await Promise.all(running);
  expect(answers.filter((a) => a !== ERASING && !a.startsWith("File created successfully"))).toEqual([]);
  // What is left was written after the purge: its tenant is listed, and holds exactly what the store shows.
  const listed = new Set(((await tenant.tenants?.({ limit: 100 }))?.tenants ?? []).map((t) => t.id));
  let shown = 0;
  for (let w = 0; w < 6; w++) {
    const files = await ((tenant.scope?.(`n${w}`) as MemoryStore).files?.() ?? []);
    if (files.length > 0) expect(listed.has(`n${w}`)).toBe(true);
    shown += files.length;
  }
  const left = (await dump()).filter((r) => r.value.includes(marker));
  expect(left.filter((r) => r.value.includes(`${marker} top`))).toEqual([]);
  expect(left.length).toBe(shown);
}

describe("the erasure fence of the Durable Object store", () => {
  it("an interrupted purge leaves the tenant and its nested tenants refusing changes until run again", async () => {
    const name = freshName();
    // Stopped as it reached the nested tenant: both objects fenced, nothing erased yet.
    await interruptedPurge(new DurableObjectStore(bindings.MEMORY, { name }), async (tenant) => {
      for (const object of [`${name}/${tenant}`, `${name}/${tenant}/b`]) {
        const stub = bindings.MEMORY.get(bindings.MEMORY.idFromName(object));
        await runInDurableObject(stub, (_instance, state: DurableObjectState) => {
          state.storage.sql.exec("INSERT OR REPLACE INTO mem_meta (key, value) VALUES ('fence', 1)");
        });
      }
    });
  });

  it("writers creating files in nested tenants during a purge leave nothing unlisted", async () => {
    await nestedRace(new DurableObjectStore(bindings.MEMORY, { name: freshName() }), dumpObjects);
  });
});

describe("the erasure fence of the D1 store", () => {
  it("an interrupted purge leaves the tenant and its nested tenants refusing changes until run again", async () => {
    const root = new D1Store(bindings.DB).scope(freshName());
    await root.usage();
    const chain = await tenantChain(root);
    await interruptedPurge(root, async (tenant) => {
      await bindings.DB.prepare("INSERT INTO mem_fences (tenant) VALUES (?)")
        .bind(`${chain}/${tenant}`)
        .run();
    });
  });

  it("writers creating files in nested tenants during a purge leave nothing unlisted", async () => {
    await nestedRace(new D1Store(bindings.DB).scope(freshName()), dumpD1);
  });
});

/** The scope chain of a D1 store, as its rows hold it: found from a file it writes. */
async function tenantChain(store: MemoryStore): Promise<string> {
  await executeCommand(store, { command: "create", path: "/memories/.probe", file_text: "p" });
  const row = await bindings.DB.prepare(
    "SELECT tenant FROM mem_files WHERE path = '/memories/.probe'",
  ).first<{ tenant: string }>();
  await executeCommand(store, { command: "delete", path: "/memories/.probe" });
  return row?.tenant as string;
}
