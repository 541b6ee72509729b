import { describe, expect, it } from "vitest";
import {
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  MEMORY_SYSTEM_PROMPT,
  type MemoryStore,
  memorySystemPrompt,
  mountStores,
  StoreFailureError,
} from "../src/index.js";
import { CountingStore } from "./helpers/counting-store.js";

/** A store whose every call fails, as an unreachable server does. */
class DownStore extends ForwardingStore {
  constructor() {
    super(new InMemoryStore());
    const down = async () => {
      throw new StoreFailureError("connection refused");
    };
    Object.assign(this, { read: down, stat: down, list: down, write: down, delete: down, rename: down });
  }
}

const run = (store: MemoryStore, input: Record<string, unknown>) => executeCommand(store, input);
const text = async (store: MemoryStore, input: Record<string, unknown>) => (await run(store, input)).content;
const create = (store: MemoryStore, path: string, file_text: string) =>
  run(store, { command: "create", path, file_text });

const three = () => {
  const home = new InMemoryStore();
  const team = new InMemoryStore();
  const org = new InMemoryStore();
  const memory = mountStores({
    "/memories": { store: home },
    "/memories/team": {
      store: team,
      access: "read_only",
      instructions: "The team's playbook: read it first.",
    },
    "/memories/org/policies": { store: org, access: "read_only" },
  });
  return { home, team, org, memory };
};

const HEADER = (p: string) =>
  `Here're the files and directories up to 2 levels deep in ${p}, excluding hidden items and node_modules:`;

describe("mountStores: routing", () => {
  it("a path belongs to its longest mount prefix and the mounted store sees it relative to the mount", async () => {
    const { home, team, org, memory } = three();
    await create(team, "/memories/playbook.md", "be kind\n");
    await create(org, "/memories/leave.md", "ask first\n");
    await create(memory, "/memories/notes.md", "mine\n");
    expect(await text(memory, { command: "view", path: "/memories/team/playbook.md" })).toBe(
      "Here's the content of /memories/team/playbook.md with line numbers:\n     1\tbe kind",
    );
    expect(await text(memory, { command: "view", path: "/memories/org/policies/leave.md" })).toBe(
      "Here's the content of /memories/org/policies/leave.md with line numbers:\n     1\task first",
    );
    expect((await home.read("/memories/notes.md"))?.data).toEqual(new TextEncoder().encode("mine\n"));
    expect(await team.stat("/memories/notes.md")).toBeNull();
  });

  it("mountOf(path) names the mount, its store and the path that store sees", () => {
    const { team, memory } = three();
    expect(memory.mountOf("/memories/team/a/b.md")).toEqual({
      mount: {
        path: "/memories/team",
        access: "read_only",
        instructions: "The team's playbook: read it first.",
        perTenant: false,
      },
      store: team,
      path: "/memories/a/b.md",
    });
    expect(memory.mountOf("/memories/teams").mount.path).toBe("/memories");
  });

  it("lists mount points as directories with their whole mount's size, byte-exact", async () => {
    const { home, team, org, memory } = three();
    await create(home, "/memories/notes.md", "12345");
    await create(home, "/memories/.hidden", "xxxxxxxxxx");
    await create(team, "/memories/playbook.md", "1234567890");
    await create(team, "/memories/deep/a/b.md", "123");
    await create(team, "/memories/.secret", "hidden bytes are not counted");
    await create(org, "/memories/leave.md", "1234567");
    expect(await text(memory, { command: "view", path: "/memories" })).toBe(
      [
        HEADER("/memories"),
        "25B\t/memories",
        "5B\t/memories/notes.md",
        "7B\t/memories/org/",
        "7B\t/memories/org/policies/",
        "13B\t/memories/team/",
        "3B\t/memories/team/deep/",
        "10B\t/memories/team/playbook.md",
      ].join("\n"),
    );
    expect(await text(memory, { command: "view", path: "/memories/team" })).toBe(
      [
        HEADER("/memories/team"),
        "13B\t/memories/team",
        "3B\t/memories/team/deep/",
        "3B\t/memories/team/deep/a/",
        "10B\t/memories/team/playbook.md",
      ].join("\n"),
    );
    expect(await text(memory, { command: "view", path: "/memories/org" })).toBe(
      [
        HEADER("/memories/org"),
        "7B\t/memories/org",
        "7B\t/memories/org/policies/",
        "7B\t/memories/org/policies/leave.md",
      ].join("\n"),
    );
  });

  it("lists an empty mount, and hides what the parent store holds at or beneath a mount point", async () => {
    const home = new InMemoryStore();
    await create(home, "/memories/team/old.md", "shadowed!");
    await create(home, "/memories/a/b/c/d.md", "shadowed too");
    await create(home, "/memories/a/keep.md", "kept");
    const memory = mountStores({
      "/memories": { store: home },
      "/memories/team": { store: new InMemoryStore() },
      "/memories/a/b/c": { store: new InMemoryStore() },
    });
    expect(await text(memory, { command: "view", path: "/memories" })).toBe(
      [
        HEADER("/memories"),
        "4B\t/memories",
        "4B\t/memories/a/",
        "0B\t/memories/a/b/",
        "4B\t/memories/a/keep.md",
        "0B\t/memories/team/",
      ].join("\n"),
    );
    expect(await text(memory, { command: "view", path: "/memories/team/old.md" })).toBe(
      "The path /memories/team/old.md does not exist. Please provide a valid path.",
    );
  });

  it("a failing mount answers its listings with the failure result; the other mounts keep working", async () => {
    const home = new InMemoryStore();
    await create(home, "/memories/notes.md", "fine");
    const memory = mountStores({
      "/memories": { store: home },
      "/memories/broken": { store: new DownStore() },
    });
    expect(await run(memory, { command: "view", path: "/memories" })).toEqual({
      content: "Error: view failed for /memories: connection refused",
      isError: true,
    });
    expect(await text(memory, { command: "view", path: "/memories/broken/x.md" })).toBe(
      "Error: view failed for /memories/broken/x.md: connection refused",
    );
    expect(await text(memory, { command: "view", path: "/memories/notes.md" })).toBe(
      "Here's the content of /memories/notes.md with line numbers:\n     1\tfine",
    );
    expect(await text(memory, { command: "create", path: "/memories/more.md", file_text: "x" })).toBe(
      "File created successfully at: /memories/more.md",
    );
  });
});

describe("mountStores: the refusals of SPEC §8, before any storage call", () => {
  const counted = () => {
    const home = new CountingStore(new InMemoryStore());
    const team = new CountingStore(new InMemoryStore());
    const shared = new CountingStore(new InMemoryStore());
    const memory = mountStores({
      "/memories": { store: home },
      "/memories/team": { store: team, access: "read_only" },
      "/memories/shared": { store: shared },
      "/memories/x/y": { store: new InMemoryStore() },
    });
    const calls = () => home.calls + team.calls + shared.calls;
    return { memory, calls };
  };

  const cases: [Record<string, unknown>, string][] = [
    [
      { command: "create", path: "/memories/team/a.md", file_text: "x" },
      "Error: The path /memories/team/a.md is read-only: it is in the read-only memory mounted at /memories/team",
    ],
    [
      { command: "str_replace", path: "/memories/team/a.md", old_str: "x", new_str: "y" },
      "Error: The path /memories/team/a.md is read-only: it is in the read-only memory mounted at /memories/team",
    ],
    [
      { command: "insert", path: "/memories/team/a.md", insert_line: 0, insert_text: "y" },
      "Error: The path /memories/team/a.md is read-only: it is in the read-only memory mounted at /memories/team",
    ],
    [
      { command: "delete", path: "/memories/team/a.md" },
      "Error: The path /memories/team/a.md is read-only: it is in the read-only memory mounted at /memories/team",
    ],
    [
      { command: "rename", old_path: "/memories/a.md", new_path: "/memories/team/a.md" },
      "Error: The path /memories/team/a.md is read-only: it is in the read-only memory mounted at /memories/team",
    ],
    [
      { command: "rename", old_path: "/memories/team/a.md", new_path: "/memories/shared/a.md" },
      "Error: The path /memories/team/a.md is read-only: it is in the read-only memory mounted at /memories/team",
    ],
    [
      { command: "delete", path: "/memories/team" },
      "Error: Cannot delete /memories/team: a memory is mounted at /memories/team",
    ],
    [
      { command: "delete", path: "/memories/x" },
      "Error: Cannot delete /memories/x: a memory is mounted at /memories/x/y",
    ],
    [
      { command: "rename", old_path: "/memories/shared", new_path: "/memories/s2" },
      "Error: Cannot rename /memories/shared: a memory is mounted at /memories/shared",
    ],
    [
      { command: "rename", old_path: "/memories/x", new_path: "/memories/z" },
      "Error: Cannot rename /memories/x: a memory is mounted at /memories/x/y",
    ],
    [
      { command: "rename", old_path: "/memories/a.md", new_path: "/memories/shared" },
      "Error: Cannot rename /memories/shared: a memory is mounted at /memories/shared",
    ],
    [
      { command: "create", path: "/memories/shared", file_text: "x" },
      "Error: File /memories/shared already exists",
    ],
    [
      { command: "create", path: "/memories/team", file_text: "x" },
      "Error: File /memories/team already exists",
    ],
    [
      { command: "rename", old_path: "/memories/a.md", new_path: "/memories/shared/a.md" },
      "Error: Cannot rename /memories/a.md to /memories/shared/a.md: they are in different memories",
    ],
    [{ command: "delete", path: "/memories" }, "Error: Cannot delete the /memories directory itself"],
    [
      { command: "rename", old_path: "/memories", new_path: "/memories/team/z" },
      "Error: Cannot rename the /memories directory itself",
    ],
    [
      { command: "delete", path: "/memories/team/../a" },
      "Error: The path /memories/team/../a is not allowed: it contains a '.' or '..' segment",
    ],
  ];
  for (const [input, expected] of cases) {
    it(`${input.command} ${String(input.path ?? `${input.old_path} → ${input.new_path}`)}`, async () => {
      const { memory, calls } = counted();
      expect(await run(memory, input)).toEqual({ content: expected, isError: true });
      expect(calls()).toBe(0);
    });
  }

  it("reads and writes of a read-write mount reach its store", async () => {
    const { memory, calls } = counted();
    expect(await text(memory, { command: "create", path: "/memories/shared/a.md", file_text: "x" })).toBe(
      "File created successfully at: /memories/shared/a.md",
    );
    expect(
      await text(memory, {
        command: "rename",
        old_path: "/memories/shared/a.md",
        new_path: "/memories/shared/b/a.md",
      }),
    ).toBe("Successfully renamed /memories/shared/a.md to /memories/shared/b/a.md");
    expect(await text(memory, { command: "view", path: "/memories/team" })).toBe(
      `${HEADER("/memories/team")}\n0B\t/memories/team`,
    );
    expect(calls()).toBeGreaterThan(0);
  });

  it("a directory above a mount point exists: create there and rename onto it are refused by the store's own checks", async () => {
    const { memory } = counted();
    await create(memory, "/memories/a.md", "a");
    expect(await text(memory, { command: "create", path: "/memories/x", file_text: "x" })).toBe(
      "Error: File /memories/x already exists",
    );
    expect(
      await text(memory, { command: "rename", old_path: "/memories/a.md", new_path: "/memories/x" }),
    ).toBe("Error: The destination /memories/x already exists");
    expect(
      await text(memory, { command: "str_replace", path: "/memories/shared", old_str: "a", new_str: "b" }),
    ).toBe("Error: The path /memories/shared does not exist. Please provide a valid path.");
    expect(await text(memory, { command: "view", path: "/memories/x", view_range: [1, 2] })).toBe(
      "Error: The `view_range` parameter is not allowed when `path` points to a directory.",
    );
  });

  it("an error of a mounted store names the table's paths", async () => {
    const { memory } = counted();
    await create(memory, "/memories/shared/f", "file");
    expect(await text(memory, { command: "create", path: "/memories/shared/f/g.md", file_text: "x" })).toBe(
      "Error: Cannot create /memories/shared/f/g.md: /memories/shared/f is a file, not a directory",
    );
  });
});

describe("mountStores: bad tables are TypeErrors naming the mount", () => {
  const store = new InMemoryStore();
  const bad: [unknown, RegExp][] = [
    [null, /must be an object/],
    [[], /must be an object/],
    ["x", /must be an object/],
    [{ "/memories/a": { store } }, /must mount \/memories/],
    [{ "/memories": { store }, "/etc": { store } }, /"\/etc" is outside \/memories/],
    [{ "/memories": { store }, "/memoriesX": { store } }, /"\/memoriesX" is outside/],
    [{ "/memories": { store }, "/memories/a/": { store } }, /"\/memories\/a\/" must not end with a slash/],
    [{ "/memories/": { store } }, /"\/memories\/" must not end with a slash/],
    [{ "/memories": { store }, "/memories/a/../b": { store } }, /"\/memories\/a\/..\/b" is not a valid path/],
    [{ "/memories": { store }, "/memories//b": { store } }, /"\/memories\/\/b" is not a valid path/],
    [{ "/memories": { store }, "/memories/.team": { store } }, /"\/memories\/.team" is hidden/],
    [{ "/memories": { store }, "/memories/node_modules": { store } }, /is hidden/],
    [
      { "/memories": { store }, "/memories/.mem-x": { store } },
      /"\/memories\/.mem-x" is not a valid path \(The path \/memories\/.mem-x is not allowed: it uses a reserved name\)/,
    ],
    [
      { "/memories": { store }, "/memories/a": { store, access: "write" } },
      /"\/memories\/a" has an unknown access/,
    ],
    [{ "/memories": { store }, "/memories/a": store }, /"\/memories\/a" needs a store/],
    [{ "/memories": { store }, "/memories/a": 3 }, /"\/memories\/a" must be an object/],
    [
      { "/memories": { store }, "/memories/caf\u00e9": { store }, "/memories/cafe\u0301": { store } },
      /is mounted twice/,
    ],
    [{ "/memories": { store, instructions: 3 } }, /"\/memories" has instructions that are not a string/],
  ];
  for (const [table, message] of bad) {
    it(`refuses ${JSON.stringify(table)?.slice(0, 80)}`, () => {
      expect(() => mountStores(table as never)).toThrow(TypeError);
      expect(() => mountStores(table as never)).toThrow(message);
    });
  }
});

describe("memorySystemPrompt({ mounts })", () => {
  it("is SPEC §6's prompt alone without mounts", () => {
    expect(memorySystemPrompt()).toBe(MEMORY_SYSTEM_PROMPT);
  });
  it("lists each mount, its access and instructions, from the table or the mounted store", () => {
    const { memory } = three();
    const expected = `${MEMORY_SYSTEM_PROMPT}
Your memory directory is made of these memories:
- /memories (read-write)
- /memories/org/policies (read-only)
- /memories/team (read-only): The team's playbook: read it first.`;
    expect(memorySystemPrompt({ mounts: memory })).toBe(expected);
    const store = new InMemoryStore();
    expect(
      memorySystemPrompt({
        mounts: {
          "/memories/team": {
            store,
            access: "read_only",
            instructions: "The team's playbook: read it first.",
          },
          "/memories": { store },
          "/memories/org/policies": { store, access: "read_only" },
        },
      }),
    ).toBe(expected);
    expect(() => memorySystemPrompt({ mounts: store })).toThrow(TypeError);
  });
});

describe("mountStores: policies per mount", () => {
  it("usage() sums the mounts and check() checks each", async () => {
    const { memory, home, team } = three();
    await create(home, "/memories/a", "123");
    await create(team, "/memories/b", "12345");
    expect(await memory.usage()).toEqual({ files: 2, bytes: 8 });
    const failing = mountStores({
      "/memories": { store: home },
      "/memories/x": {
        store: Object.assign(new InMemoryStore(), {
          check: async () => {
            throw new Error("bucket missing");
          },
        }),
      },
    });
    await expect(failing.check()).rejects.toThrow("bucket missing");
  });

  it("scope(), tenants() and purge() reach only per-tenant mounts; a shared mount is never purged", async () => {
    const users = new InMemoryStore();
    const team = new InMemoryStore();
    await create(team, "/memories/playbook.md", "shared");
    const table = mountStores({
      "/memories": { store: users, perTenant: true },
      "/memories/team": { store: team, access: "read_only" },
    });
    const alice = table.scope("alice");
    const bob = table.scope("bob");
    await create(alice, "/memories/a.md", "alice's");
    await create(bob, "/memories/b.md", "bob's");
    expect(await text(alice, { command: "view", path: "/memories/team/playbook.md" })).toContain("1\tshared");
    expect(await text(bob, { command: "view", path: "/memories/a.md" })).toBe(
      "The path /memories/a.md does not exist. Please provide a valid path.",
    );
    expect((await table.tenants()).tenants.map((t) => t.id)).toEqual(["alice", "bob"]);
    expect(await alice.purge?.()).toEqual({ files: 1, bytes: 7 });
    expect(await text(alice, { command: "view", path: "/memories" })).toBe(
      [HEADER("/memories"), "6B\t/memories", "6B\t/memories/team/", "6B\t/memories/team/playbook.md"].join(
        "\n",
      ),
    );
    expect(await text(bob, { command: "view", path: "/memories/b.md" })).toContain("1\tbob's");
    expect((await team.read("/memories/playbook.md"))?.data.length).toBe(6);
    expect(() => mountStores({ "/memories": { store: users } }).scope("alice")).toThrow(TypeError);
  });
});

describe("mountStores: concurrency on a shared read-write mount", () => {
  it("loses no update when many agents edit one file at once", async () => {
    const shared = new InMemoryStore();
    const agents = Array.from({ length: 8 }, () =>
      mountStores({ "/memories": { store: new InMemoryStore() }, "/memories/shared": { store: shared } }),
    );
    await create(agents[0] as MemoryStore, "/memories/shared/log.md", "");
    const per = 25;
    const results = await Promise.all(
      agents.flatMap((agent, a) =>
        Array.from({ length: per }, (_, i) =>
          run(agent, {
            command: "insert",
            path: "/memories/shared/log.md",
            insert_line: 0,
            insert_text: `${a}-${i}`,
          }),
        ),
      ),
    );
    expect(results.filter((r) => r.isError)).toEqual([]);
    const lines = new TextDecoder()
      .decode((await shared.read("/memories/log.md"))?.data)
      .split("\n")
      .filter(Boolean);
    expect(lines.length).toBe(agents.length * per);
    expect(new Set(lines).size).toBe(agents.length * per);
  });
});

describe("mountStores: behind a proxy", () => {
  it("keeps its refusals and its prompt lines when a proxy forwards to it (as the CLI's labelled stores do)", async () => {
    const { memory } = three();
    const proxied = new Proxy(memory, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    expect(await text(proxied, { command: "create", path: "/memories/team/x.md", file_text: "x" })).toBe(
      "Error: The path /memories/team/x.md is read-only: it is in the read-only memory mounted at /memories/team",
    );
    expect(memorySystemPrompt({ mounts: proxied })).toBe(memorySystemPrompt({ mounts: memory }));
  });
});

describe("mountStores: whole-store operations", () => {
  it("files() lists every mount's files under the table's paths, never what a mount hides", async () => {
    const home = new InMemoryStore();
    const team = new InMemoryStore();
    await create(home, "/memories/a.md", "a");
    await create(home, "/memories/team/hidden-by-the-mount.md", "x");
    await create(team, "/memories/.notes", "nn");
    const memory = mountStores({ "/memories": { store: home }, "/memories/team": { store: team } });
    expect((await memory.files?.())?.sort((x, y) => (x.path < y.path ? -1 : 1))).toEqual([
      { path: "/memories/a.md", size: 1 },
      { path: "/memories/team/.notes", size: 2 },
    ]);
  });

  it("sweep() sweeps each mount and reports the table's paths", async () => {
    let now = 1_000_000;
    const clock = () => now;
    const home = new InMemoryStore({ expireAfterSeconds: 60, clock });
    const team = new InMemoryStore({ expireAfterSeconds: 60, clock });
    const memory = mountStores({ "/memories": { store: home }, "/memories/team": { store: team } });
    await create(memory, "/memories/old.md", "123");
    await create(memory, "/memories/team/old.md", "45");
    now += 61_000;
    const swept = await memory.sweep();
    expect({ paths: [...swept.paths].sort(), bytes: swept.bytes }).toEqual({
      paths: ["/memories/old.md", "/memories/team/old.md"],
      bytes: 5,
    });
  });

  it("a listing limit counts what it leaves out across mounts", async () => {
    const home = new InMemoryStore();
    const team = new InMemoryStore();
    for (const n of [1, 2, 3]) await create(home, `/memories/h${n}.md`, "h");
    for (const n of [1, 2]) await create(team, `/memories/t${n}.md`, "t");
    const memory = mountStores({ "/memories": { store: home }, "/memories/team": { store: team } });
    expect(
      (await executeCommand(memory, { command: "view", path: "/memories" }, { listLimit: 4 })).content,
    ).toBe(
      [
        HEADER("/memories"),
        "5B\t/memories",
        "1B\t/memories/h1.md",
        "1B\t/memories/h2.md",
        "1B\t/memories/h3.md",
        "2B\t/memories/team/",
        "... 2 more entries not shown. View a subdirectory to see them.",
      ].join("\n"),
    );
  });
});
