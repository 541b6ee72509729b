import { describe, expect, it } from "vitest";
import {
  executeCommand,
  InMemoryStore,
  type MemoryStore,
  mountStores,
  type SensitiveOptions,
} from "../src/index.js";
import { CountingStore } from "./helpers/counting-store.js";

const tooManyFiles = (path: string, files: number, limit: number) =>
  `Error: Cannot create ${path}: memory already holds ${files} files, the limit is ${limit}. Delete or merge files first.`;
const tooManyBytes = (path: string, total: number, limit: number) =>
  `Error: Cannot write ${path}: memory would hold ${total} bytes, over the limit of ${limit} bytes. Delete or shorten files first.`;
const refused = (path: string, line: number, label: string) =>
  `Error: Refused to write ${path}: line ${line} looks like ${label}. Do not store secrets or personal data in memory.`;

const create = (store: MemoryStore, path: string, file_text: string, options = {}) =>
  executeCommand(store, { command: "create", path, file_text }, options);

const EMAIL: SensitiveOptions = { detectors: { email: true } };

describe("a mount's own quota", () => {
  const table = () => {
    const home = new CountingStore(new InMemoryStore());
    const team = new CountingStore(new InMemoryStore());
    const memory = mountStores({
      "/memories": { store: home },
      "/memories/team": { store: team, quota: { maxFiles: 2, maxTotalBytes: 20 } },
    });
    return { home, team, memory };
  };

  it("refuses a create beyond it in that mount, with the path the model sees, and not in another", async () => {
    const { home, team, memory } = table();
    expect((await create(memory, "/memories/team/a.md", "aaaa")).isError).toBe(false);
    expect((await create(memory, "/memories/team/b.md", "bbbb")).isError).toBe(false);
    const third = await create(memory, "/memories/team/c.md", "cccc");
    expect(third).toEqual({ content: tooManyFiles("/memories/team/c.md", 2, 2), isError: true });
    expect(await team.read("/memories/c.md")).toBeNull();
    for (const name of ["a", "b", "c", "d", "e"]) {
      expect((await create(memory, `/memories/${name}.md`, "x".repeat(30))).isError).toBe(false);
    }
    expect(await home.usage()).toEqual({ files: 5, bytes: 150 });
    expect(await team.usage()).toEqual({ files: 2, bytes: 8 });
  });

  it("counts bytes of that mount alone, for creates and edits", async () => {
    const { memory } = table();
    await create(memory, "/memories/big.md", "x".repeat(100));
    expect((await create(memory, "/memories/team/a.md", "0123456789")).isError).toBe(false);
    expect(await create(memory, "/memories/team/b.md", "0123456789A")).toEqual({
      content: tooManyBytes("/memories/team/b.md", 21, 20),
      isError: true,
    });
    const grow = await executeCommand(memory, {
      command: "str_replace",
      path: "/memories/team/a.md",
      old_str: "0123",
      new_str: "0123456789abcdef",
    });
    expect(grow).toEqual({ content: tooManyBytes("/memories/team/a.md", 22, 20), isError: true });
  });

  it("asks only the written mount's store for its usage: the other mount sees no call", async () => {
    const { home, team, memory } = table();
    home.names.length = 0;
    team.names.length = 0;
    await create(memory, "/memories/team/a.md", "a");
    expect(home.names).toEqual([]);
    expect(team.names).toEqual(["usage", "write"]);
    team.names.length = 0;
    await create(memory, "/memories/a.md", "a");
    expect(team.names).toEqual([]);
    expect(home.names).toEqual(["write"]);
  });

  it("is checked after the table-wide quota, which keeps limiting the whole table", async () => {
    const { memory } = table();
    await create(memory, "/memories/a.md", "a");
    await create(memory, "/memories/b.md", "b");
    const options = { maxFiles: 3 };
    expect((await create(memory, "/memories/team/x.md", "x", options)).isError).toBe(false);
    expect(await create(memory, "/memories/team/y.md", "y", options)).toEqual({
      content: tooManyFiles("/memories/team/y.md", 3, 3),
      isError: true,
    });
    expect(await create(memory, "/memories/team/y.md", "y", { maxFiles: 10 })).toEqual({
      content: "File created successfully at: /memories/team/y.md",
      isError: false,
    });
    expect(await create(memory, "/memories/team/z.md", "z", { maxFiles: 10 })).toEqual({
      content: tooManyFiles("/memories/team/z.md", 2, 2),
      isError: true,
    });
  });

  it("checks both byte limits on edits and overwrites: the table's first, then the mount's", async () => {
    const { memory } = table();
    await create(memory, "/memories/big.md", "x".repeat(100));
    await create(memory, "/memories/team/a.md", "0123456789");
    const replace = (new_str: string, options = {}) =>
      executeCommand(
        memory,
        { command: "str_replace", path: "/memories/team/a.md", old_str: "0123456789", new_str },
        options,
      );
    expect(await replace("y".repeat(15), { maxTotalBytes: 112 })).toEqual({
      content: tooManyBytes("/memories/team/a.md", 115, 112),
      isError: true,
    });
    expect(await replace("y".repeat(21), { maxTotalBytes: 1000 })).toEqual({
      content: tooManyBytes("/memories/team/a.md", 21, 20),
      isError: true,
    });
    expect((await replace("y".repeat(20), { maxTotalBytes: 1000 })).isError).toBe(false);
    const overwrite = await create(memory, "/memories/team/a.md", "z".repeat(25), {
      createOverwrites: true,
      maxTotalBytes: 1000,
    });
    expect(overwrite).toEqual({ content: tooManyBytes("/memories/team/a.md", 25, 20), isError: true });
  });

  it("never refuses deletes and renames, and is measured per tenant on a per-tenant mount", async () => {
    const users = new InMemoryStore();
    const memory = mountStores({
      "/memories": { store: users, perTenant: true, quota: { maxFiles: 1 } },
      "/memories/team": { store: new InMemoryStore() },
    });
    const alice = memory.scope("alice");
    const bob = memory.scope("bob");
    expect((await create(alice, "/memories/a.md", "a")).isError).toBe(false);
    expect(await create(alice, "/memories/b.md", "b")).toEqual({
      content: tooManyFiles("/memories/b.md", 1, 1),
      isError: true,
    });
    expect((await create(bob, "/memories/a.md", "a")).isError).toBe(false);
    expect((await create(alice, "/memories/team/t.md", "t")).isError).toBe(false);
    const renamed = await executeCommand(alice, {
      command: "rename",
      old_path: "/memories/a.md",
      new_path: "/memories/c.md",
    });
    expect(renamed.isError).toBe(false);
    expect((await executeCommand(alice, { command: "delete", path: "/memories/c.md" })).isError).toBe(false);
  });
});

describe("a mount's own guard", () => {
  it("guards the mount that sets it and no other", async () => {
    const home = new InMemoryStore();
    const contacts = new CountingStore(new InMemoryStore());
    const memory = mountStores({
      "/memories": { store: home, guard: EMAIL },
      "/memories/contacts": { store: contacts, guard: false },
    });
    const text = "write to ann@example.com\n";
    expect(await create(memory, "/memories/a.md", text, { sensitive: false })).toEqual({
      content: refused("/memories/a.md", 1, "an email address"),
      isError: true,
    });
    expect(await home.read("/memories/a.md")).toBeNull();
    const kept = await create(memory, "/memories/contacts/ann.md", text);
    expect(kept.isError).toBe(false);
    expect(new TextDecoder().decode((await contacts.read("/memories/ann.md"))?.data)).toBe(text);
  });

  it("refuses before any storage call of the mount, for creates, edits and rename destinations", async () => {
    const team = new CountingStore(new InMemoryStore());
    const memory = mountStores({
      "/memories": { store: new InMemoryStore() },
      "/memories/team": { store: team, guard: EMAIL },
    });
    expect((await create(memory, "/memories/team/a.md", "plain\n")).isError).toBe(false);
    team.names.length = 0;
    expect(await create(memory, "/memories/team/b.md", "x\nbob@example.com\n")).toEqual({
      content: refused("/memories/team/b.md", 2, "an email address"),
      isError: true,
    });
    expect(team.names).toEqual([]);
    const edit = await executeCommand(memory, {
      command: "insert",
      path: "/memories/team/a.md",
      insert_line: 1,
      insert_text: "cc bob@example.com",
    });
    expect(edit).toEqual({ content: refused("/memories/team/a.md", 2, "an email address"), isError: true });
    expect(new TextDecoder().decode((await team.read("/memories/a.md"))?.data)).toBe("plain\n");
    const rename = await executeCommand(memory, {
      command: "rename",
      old_path: "/memories/team/a.md",
      new_path: "/memories/team/bob@example.com.md",
    });
    expect(rename.content).toBe(
      "Error: Refused to write /memories/team/[REDACTED]: the path looks like an email address. Do not store secrets or personal data in memory.",
    );
  });

  it("redacts in its own mode and says so", async () => {
    const team = new InMemoryStore();
    const memory = mountStores({
      "/memories": { store: new InMemoryStore() },
      "/memories/team": { store: team, guard: { ...EMAIL, mode: "redact" } },
    });
    const result = await create(memory, "/memories/team/a.md", "ann@example.com\n");
    expect(result).toEqual({
      content:
        "File created successfully at: /memories/team/a.md\n(Note: 1 sensitive value(s) were replaced by [REDACTED] before saving.)",
      isError: false,
    });
    expect(new TextDecoder().decode((await team.read("/memories/a.md"))?.data)).toBe("[REDACTED]\n");
  });

  it("leaves the table-wide guard on the mounts that set none", async () => {
    const memory = mountStores({
      "/memories": { store: new InMemoryStore() },
      "/memories/team": { store: new InMemoryStore(), guard: false },
    });
    const text = "ann@example.com\n";
    expect((await create(memory, "/memories/a.md", text, { sensitive: EMAIL })).isError).toBe(true);
    expect((await create(memory, "/memories/team/a.md", text, { sensitive: EMAIL })).isError).toBe(false);
  });
});

describe("bad per-mount policies", () => {
  const store = new InMemoryStore();
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ["a zero maxFiles", { quota: { maxFiles: 0 } }, /"\/memories\/team" has a bad quota: quota\.maxFiles/],
    ["a quota that is not an object", { quota: 5 }, /"\/memories\/team" has a quota that is not an object/],
    ["an unknown guard mode", { guard: { mode: "hide" } }, /"\/memories\/team" has a bad guard: guard\.mode/],
    ["a guard that is true", { guard: true }, /"\/memories\/team" has a bad guard/],
  ];
  for (const [name, entry, message] of bad) {
    it(`refuses ${name} at construction, naming the mount`, () => {
      expect(() =>
        mountStores({ "/memories": { store }, "/memories/team": { store, ...entry } } as never),
      ).toThrow(message);
    });
  }

  it("keeps policies out of the mounts' descriptions", () => {
    const memory = mountStores({ "/memories": { store, quota: { maxFiles: 3 }, guard: false } });
    expect(memory.mounts).toEqual([{ path: "/memories", access: "read_write", perTenant: false }]);
  });
});
