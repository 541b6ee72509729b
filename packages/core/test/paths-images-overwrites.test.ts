import { describe, expect, it } from "vitest";
import { executeCommand, InMemoryStore, type MemoryStore, toContentBlocks } from "../src/index.js";
import { validatePath } from "../src/path.js";

const notAllowed = (raw: string, why: string) => `Error: The path ${raw} is not allowed: ${why}`;

describe("names starting with .mem- (SPEC §2)", () => {
  it("are refused on every store, before any storage call", async () => {
    for (const raw of ["/memories/.mem-history", "/memories/a/.mem-x/b", "/memories/.mem-"]) {
      expect(validatePath(raw)).toEqual({ ok: false, error: notAllowed(raw, "it uses a reserved name") });
    }
    expect(validatePath("/memories/.memo").ok).toBe(true);
    expect(validatePath("/memories/mem-a").ok).toBe(true);
    const store = new InMemoryStore();
    const calls: string[] = [];
    const watched = new Proxy(store, {
      get: (target, key, receiver) => {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(key));
          return value.apply(target, args);
        };
      },
    });
    const result = await executeCommand(watched, {
      command: "create",
      path: "/memories/.mem-history/x",
      file_text: "x",
    });
    expect(result).toEqual({
      content: notAllowed("/memories/.mem-history/x", "it uses a reserved name"),
      isError: true,
    });
    expect(calls.filter((c) => c !== "isReservedName")).toEqual([]);
  });
});

describe("echo of long paths and old_str (SPEC §2, §4)", () => {
  it("echoes a path over 2,048 characters as its first 2,048 and a count", () => {
    const raw = `/etc/${"a".repeat(3000)}`;
    expect(validatePath(raw)).toEqual({
      ok: false,
      error: `Error: The path ${raw.slice(0, 2048)}...[${raw.length - 2048} more characters] is outside the memory directory. All paths must start with /memories`,
    });
    const exact = `/memories/${"\u0000".repeat(2038)}`;
    expect(exact.length).toBe(2048);
    expect(validatePath(exact)).toEqual({
      ok: false,
      error: notAllowed(`/memories/${"\\u0000".repeat(2038)}`, "it contains a control character"),
    });
  });

  it("answers a 64 MiB path without throwing", async () => {
    const size = 64 * 1024 * 1024;
    const raw = `/memories/${"a".repeat(size - 10)}`;
    const result = await executeCommand(new InMemoryStore(), { command: "view", path: raw });
    expect(result).toEqual({
      content: notAllowed(
        `${raw.slice(0, 2048)}...[${size - 2048} more characters]`,
        "it is longer than 1024 bytes",
      ),
      isError: true,
    });
    const slashes = `/memories/${"a/".repeat(size / 2 - 5)}`;
    const many = await executeCommand(new InMemoryStore(), { command: "view", path: `${slashes}/` });
    expect(many).toEqual({
      content: notAllowed(
        `${slashes.slice(0, 2048)}...[${slashes.length + 1 - 2048} more characters]`,
        "it contains an empty segment",
      ),
      isError: true,
    });
  });

  it("checks segments in the table's order, whatever their place", () => {
    expect(validatePath("/memories//a/..")).toEqual({
      ok: false,
      error: notAllowed("/memories//a/..", "it contains a '.' or '..' segment"),
    });
    expect(validatePath("/memories/a/\uff0e\uff0e/b").ok).toBe(false);
  });

  it("caps the old_str echoed by both str_replace errors", async () => {
    const store = new InMemoryStore();
    const long = "q".repeat(2050);
    await executeCommand(store, { command: "create", path: "/memories/f", file_text: `${long}\n${long}\n` });
    const shown = `${"q".repeat(2048)}...[2 more characters]`;
    expect(
      await executeCommand(store, { command: "str_replace", path: "/memories/f", old_str: `${long}z` }),
    ).toEqual({
      content: `No replacement was performed, old_str \`${"q".repeat(2048)}...[3 more characters]\` did not appear verbatim in /memories/f.`,
      isError: true,
    });
    expect(
      await executeCommand(store, { command: "str_replace", path: "/memories/f", old_str: long }),
    ).toEqual({
      content: `No replacement was performed. Multiple occurrences of old_str \`${shown}\` in lines: 1, 2. Please ensure it is unique`,
      isError: true,
    });
  });
});

const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("image views (SPEC §4 Image)", () => {
  const seeded = async (files: Record<string, Uint8Array | string>) => {
    const store = new InMemoryStore();
    for (const [path, data] of Object.entries(files)) {
      await store.write(path, typeof data === "string" ? new TextEncoder().encode(data) : data, {
        ifAbsent: true,
      });
    }
    return store;
  };

  it("returns the image typed by its bytes, with a text-only form", async () => {
    const store = await seeded({ "/memories/a.PNG": PNG, "/memories/b.jpeg": JPEG, "/memories/c.jpg": PNG });
    expect(await executeCommand(store, { command: "view", path: "/memories/a.PNG" })).toEqual({
      content: "Here's the image /memories/a.PNG: image/png, 16 bytes",
      isError: false,
      image: { mediaType: "image/png", data: b64(PNG) },
    });
    expect(await executeCommand(store, { command: "view", path: "/memories/b.jpeg" })).toEqual({
      content: "Here's the image /memories/b.jpeg: image/jpeg, 10 bytes",
      isError: false,
      image: { mediaType: "image/jpeg", data: b64(JPEG) },
    });
    await store.write("/memories/renamed.png", JPEG, { ifAbsent: true });
    expect(await executeCommand(store, { command: "view", path: "/memories/renamed.png" })).toEqual({
      content: "Here's the image /memories/renamed.png: image/jpeg, 10 bytes",
      isError: false,
      image: { mediaType: "image/jpeg", data: b64(JPEG) },
    });
    const png = await executeCommand(store, { command: "view", path: "/memories/c.jpg" });
    expect(png.image?.mediaType).toBe("image/png");
    expect(toContentBlocks(png)).toEqual([
      { type: "text", text: "Here's the image /memories/c.jpg:" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: b64(PNG) } },
    ]);
    expect(toContentBlocks({ content: "Error: x", isError: true })).toEqual([
      { type: "text", text: "Error: x" },
    ]);
  });

  it("answers each bad input with its error, changing nothing", async () => {
    const truncated = PNG.subarray(0, 5);
    const store = await seeded({
      "/memories/t.png": truncated,
      "/memories/text.png": "just text\n",
      "/memories/empty.jpg": new Uint8Array(0),
      "/memories/big.png": new Uint8Array([...PNG, ...new Uint8Array(100)]),
      "/memories/ok.png": PNG,
    });
    const cases: [unknown, string][] = [
      [
        { command: "view", path: "/memories/t.png" },
        "Error: The file /memories/t.png is not a valid PNG or JPEG image",
      ],
      [
        { command: "view", path: "/memories/text.png" },
        "Error: The file /memories/text.png is not a valid PNG or JPEG image",
      ],
      [
        { command: "view", path: "/memories/empty.jpg" },
        "Error: The file /memories/empty.jpg is not a valid PNG or JPEG image",
      ],
      [
        { command: "view", path: "/memories/big.png" },
        "Error: The image /memories/big.png is 116 bytes, which exceeds the limit of 50 bytes",
      ],
      [
        { command: "view", path: "/memories/ok.png", view_range: [1, 2] },
        "Error: The `view_range` parameter is not allowed when `path` points to an image.",
      ],
      [
        { command: "str_replace", path: "/memories/ok.png", old_str: "PNG" },
        "Error: The file /memories/ok.png is not a UTF-8 text file",
      ],
      [
        { command: "str_replace", path: "/memories/text.png", old_str: "just" },
        "Error: The file /memories/text.png is not a UTF-8 text file",
      ],
      [
        { command: "insert", path: "/memories/ok.png", insert_line: 0, insert_text: "x" },
        "Error: The file /memories/ok.png is not a UTF-8 text file",
      ],
    ];
    for (const [input, content] of cases) {
      expect(await executeCommand(store, input, { maxImageBytes: 50 })).toEqual({ content, isError: true });
    }
    expect((await store.read("/memories/ok.png"))?.data).toEqual(PNG);
    expect((await store.read("/memories/text.png"))?.data).toEqual(new TextEncoder().encode("just text\n"));
  });

  it("treats a file with another name as text, whatever its bytes", async () => {
    const store = await seeded({ "/memories/png.txt": PNG, "/memories/a.png.bak": "x\n" });
    expect((await executeCommand(store, { command: "view", path: "/memories/png.txt" })).content).toBe(
      "Error: The file /memories/png.txt is not a UTF-8 text file",
    );
    expect((await executeCommand(store, { command: "view", path: "/memories/a.png.bak" })).content).toBe(
      "Here's the content of /memories/a.png.bak with line numbers:\n     1\tx",
    );
  });

  it("counts an image like any file in listings", async () => {
    const store = await seeded({ "/memories/a.png": PNG });
    expect((await executeCommand(store, { command: "view", path: "/memories" })).content).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n16B\t/memories\n16B\t/memories/a.png",
    );
  });
});

describe("files over maxFileBytes written around the tool", () => {
  it("are refused by view with their size", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/big.txt", new Uint8Array(40).fill(0x61), { ifAbsent: true });
    expect(
      await executeCommand(store, { command: "view", path: "/memories/big.txt" }, { maxFileBytes: 30 }),
    ).toEqual({
      content: "Error: The file /memories/big.txt is 40 bytes, which exceeds the limit of 30 bytes",
      isError: true,
    });
  });
});

describe("createOverwrites (SPEC §4 create)", () => {
  const encode = (s: string) => new TextEncoder().encode(s);
  const text = async (store: InMemoryStore, path: string) =>
    new TextDecoder().decode((await store.read(path))?.data);

  it("is off by default: create on an existing file is the reference error", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/a", encode("old"), { ifAbsent: true });
    expect(await executeCommand(store, { command: "create", path: "/memories/a", file_text: "new" })).toEqual(
      {
        content: "Error: File /memories/a already exists",
        isError: true,
      },
    );
    expect(await text(store, "/memories/a")).toBe("old");
  });

  it("replaces an existing file's content and answers the usual success line", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/a", encode("old"), { ifAbsent: true });
    const events: unknown[] = [];
    const options = { createOverwrites: true, onChange: (e: unknown) => void events.push(e) };
    expect(
      await executeCommand(store, { command: "create", path: "/memories/a", file_text: "new" }, options),
    ).toEqual({
      content: "File created successfully at: /memories/a",
      isError: false,
    });
    expect(await text(store, "/memories/a")).toBe("new");
    expect(events).toEqual([
      {
        command: "create",
        path: "/memories/a",
        sizeBefore: 3,
        sizeAfter: 3,
        bytes: 3,
        time: expect.any(Number),
      },
    ]);
  });

  it("still refuses a directory at the path, and a file among the ancestors", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/d/f", encode("x"), { ifAbsent: true });
    const run = (path: string) =>
      executeCommand(store, { command: "create", path, file_text: "y" }, { createOverwrites: true });
    expect(await run("/memories/d")).toEqual({
      content: "Error: File /memories/d already exists",
      isError: true,
    });
    expect(await run("/memories/d/f/g")).toEqual({
      content: "Error: Cannot create /memories/d/f/g: /memories/d/f is a file, not a directory",
      isError: true,
    });
    expect(await run("/memories")).toEqual({
      content: "Error: File /memories already exists",
      isError: true,
    });
  });

  it("keeps the guard and the quotas: an overwrite is measured as an edit", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/a", encode("12345"), { ifAbsent: true });
    const options = { createOverwrites: true, maxFiles: 1, maxTotalBytes: 8 };
    expect(
      await executeCommand(store, { command: "create", path: "/memories/a", file_text: "1234567" }, options),
    ).toEqual({
      content: "File created successfully at: /memories/a",
      isError: false,
    });
    expect(
      await executeCommand(
        store,
        { command: "create", path: "/memories/a", file_text: "123456789" },
        options,
      ),
    ).toEqual({
      content:
        "Error: Cannot write /memories/a: memory would hold 9 bytes, over the limit of 8 bytes. Delete or shorten files first.",
      isError: true,
    });
    const secret = "key sk-ant-api03-" + "A".repeat(93) + "AA\n";
    const guarded = await executeCommand(
      store,
      { command: "create", path: "/memories/a", file_text: secret },
      {
        createOverwrites: true,
      },
    );
    expect(guarded.isError).toBe(true);
    expect(guarded.content.startsWith("Error: Refused to write /memories/a: line 1 looks like")).toBe(true);
    expect(await text(store, "/memories/a")).toBe("1234567");
  });

  it("loses nothing under 16 concurrent writers, with or without the store's update", async () => {
    for (const native of [true, false]) {
      const inner = new InMemoryStore();
      // A native `update`: one edit at a time, read and write with nothing in between.
      let queue: Promise<unknown> = Promise.resolve();
      Object.assign(inner, {
        update: (path: string, change: (d: Uint8Array) => Uint8Array | null) => {
          const next = queue.then(async () => {
            const file = await inner.read(path);
            if (!file) return false;
            const data = change(file.data);
            if (data) await inner.write(path, data, { ifVersion: file.version });
            return true;
          });
          queue = next.catch(() => undefined);
          return next;
        },
      });
      await inner.write("/memories/a", encode("start"), { ifAbsent: true });
      const seen: string[] = [];
      // Every write that lands, recorded: each writer's content must land exactly once.
      const store = new Proxy(inner, {
        get(target, key, receiver) {
          if (key === "update" && !native) return undefined;
          if (key === "write")
            return async (path: string, data: Uint8Array, condition: never) => {
              const result = await target.write(path, data, condition);
              seen.push(new TextDecoder().decode(data));
              return result;
            };
          if (key === "update")
            return (path: string, change: (d: Uint8Array) => Uint8Array | null) =>
              (target as MemoryStore).update?.(path, (d) => {
                const next = change(d);
                if (next) seen.push(new TextDecoder().decode(next));
                return next;
              });
          const value = Reflect.get(target, key, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const texts = Array.from({ length: 16 }, (_, i) => `writer ${i}\n`);
      const results = await Promise.all(
        texts.map((file_text) =>
          executeCommand(
            store,
            { command: "create", path: "/memories/a", file_text },
            { createOverwrites: true },
          ),
        ),
      );
      expect(new Set(results.map((r) => JSON.stringify(r)))).toEqual(
        new Set([JSON.stringify({ content: "File created successfully at: /memories/a", isError: false })]),
      );
      expect([...seen].sort()).toEqual([...texts].sort());
      expect(await text(inner, "/memories/a")).toBe(seen.at(-1));
    }
  });
});
