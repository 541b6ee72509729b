import {
  AlreadyExistsError,
  ConflictError,
  InMemoryStore,
  type Listing,
  type MemoryStore,
  NotADirectoryError,
  NotFoundError,
} from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashTagOf, keyBaseOf, RedisStore } from "../src/index.js";
import { bytes, indexProblems, TestRedis, textOf } from "./helpers.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await TestRedis.start();
});
afterAll(async () => {
  await redis?.stop();
});

const sortedListing = (listing: Listing | null) =>
  listing && {
    size: listing.size,
    entries: [...listing.entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  };

/** Every key of a store, without its key base. */
const keysOf = async (store: RedisStore): Promise<string[]> => {
  const keys = await store.client.keys(`${store.keyBase.replace(/[{}*?[\]\\]/g, "\\$&")}*`);
  return keys.map((key) => key.slice(store.keyBase.length)).sort();
};

describe("key naming", () => {
  it("wraps a plain prefix into a hash tag and keeps a prefix that has one", () => {
    expect(keyBaseOf("tenant-1")).toBe("{tenant-1}:");
    expect(keyBaseOf("app:{tenant-1}:")).toBe("app:{tenant-1}:");
    expect(keyBaseOf("a{}b")).toBe("{a{}b}:");
    expect(hashTagOf(keyBaseOf("a{}b"))).toBe("a{");
    expect(hashTagOf("x{}y{z}")).toBeUndefined();
    expect(() => keyBaseOf("")).toThrow(/non-empty/);
  });

  it("puts every key of a store into the same cluster slot", async () => {
    const store = redis.store();
    await store.write("/memories/dir one/ünï cödé.md", bytes("x"), { ifAbsent: true });
    await store.write("/memories/other", bytes("y"), { ifAbsent: true });
    const keys = await store.client.keys("*");
    const ours = keys.filter((key) => key.startsWith(store.keyBase));
    expect(ours.length).toBeGreaterThanOrEqual(5);
    const slots = new Set(
      await Promise.all(ours.map((key) => store.client.call("CLUSTER", "KEYSLOT", key).catch(() => "n/a"))),
    );
    // A standalone server still answers CLUSTER KEYSLOT.
    expect(slots.size).toBe(1);
    expect(new Set(ours.map(hashTagOf))).toEqual(new Set([hashTagOf(store.keyBase)]));
  });
});

describe("files", () => {
  it("writes, reads and versions bytes exactly", async () => {
    const store = redis.store();
    const content = new Uint8Array([0, 1, 2, 255, 254, 10, 13, 0]);
    const { version } = await store.write("/memories/bin", content, { ifAbsent: true });
    const read = await store.read("/memories/bin");
    expect(read?.data).toEqual(content);
    expect(read?.version).toBe(version);
    expect(await store.stat("/memories/bin")).toEqual({ kind: "file", size: 8 });
    const second = await store.write("/memories/bin", bytes(""), { ifVersion: version });
    expect(second.version).not.toBe(version);
    expect((await store.read("/memories/bin"))?.data).toEqual(new Uint8Array());
    expect(await store.stat("/memories/bin")).toEqual({ kind: "file", size: 0 });
  });

  it("create never overwrites and edits are compare-and-set", async () => {
    const store = redis.store();
    const { version } = await store.write("/memories/a.txt", bytes("one"), { ifAbsent: true });
    await expect(store.write("/memories/a.txt", bytes("two"), { ifAbsent: true })).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    const edited = await store.write("/memories/a.txt", bytes("two"), { ifVersion: version });
    await expect(
      store.write("/memories/a.txt", bytes("three"), { ifVersion: version }),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(store.write("/memories/nope", bytes("x"), { ifVersion: version })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(textOf((await store.read("/memories/a.txt"))!.data)).toBe("two");
    expect((await store.read("/memories/a.txt"))!.version).toBe(edited.version);
  });

  it("never reuses a version, even after delete and re-create", async () => {
    const store = redis.store();
    const first = await store.write("/memories/f", bytes("same"), { ifAbsent: true });
    await store.delete("/memories/f");
    const second = await store.write("/memories/f", bytes("same"), { ifAbsent: true });
    expect(second.version).not.toBe(first.version);
    await expect(store.write("/memories/f", bytes("x"), { ifVersion: first.version })).rejects.toBeInstanceOf(
      ConflictError,
    );
  });

  it("keeps a name from being both a file and a directory", async () => {
    const store = redis.store();
    await store.write("/memories/a/b.txt", bytes("x"), { ifAbsent: true });
    await expect(store.write("/memories/a", bytes("x"), { ifAbsent: true })).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    const error = await store
      .write("/memories/a/b.txt/c/d", bytes("x"), { ifAbsent: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotADirectoryError);
    expect((error as NotADirectoryError).ancestor).toBe("/memories/a/b.txt");
    expect(await store.stat("/memories/a/b.txt/c")).toBeNull();
    expect(await store.read("/memories/a")).toBeNull();
    expect(await store.stat("/memories/a")).toEqual({ kind: "directory" });
  });

  it("handles names with spaces, unicode, braces and glob characters", async () => {
    const store = redis.store();
    const paths = [
      "/memories/with space/x y.md",
      "/memories/日本語/ファイル.txt",
      "/memories/{tag}/[a]*?.txt",
      "/memories/emoji 🚀/é\u0301",
    ];
    for (const path of paths) await store.write(path, bytes(path), { ifAbsent: true });
    for (const path of paths) expect(textOf((await store.read(path))!.data)).toBe(path);
    const listing = sortedListing(await store.list("/memories", 2));
    expect(listing?.entries.map((entry) => entry.path)).toEqual(
      [...paths, ...paths.map((path) => path.slice(0, path.lastIndexOf("/")))].sort(),
    );
  });
});

describe("directories", () => {
  it("are implicit: they appear with their first file and vanish with their last", async () => {
    const store = redis.store();
    await store.write("/memories/a/b/c/d.txt", bytes("1234"), { ifAbsent: true });
    for (const dir of ["/memories/a", "/memories/a/b", "/memories/a/b/c"]) {
      expect(await store.stat(dir)).toEqual({ kind: "directory" });
    }
    expect(await store.delete("/memories/a/b/c/d.txt")).toBe(true);
    for (const dir of ["/memories/a", "/memories/a/b", "/memories/a/b/c"]) {
      expect(await store.stat(dir)).toBeNull();
      expect(await store.list(dir, 2)).toBeNull();
    }
    expect(await store.stat("/memories")).toEqual({ kind: "directory" });
    expect(await store.list("/memories", 2)).toEqual({ size: 0, entries: [] });
    // Nothing is left behind but the version counter.
    expect(await keysOf(store)).toEqual(["seq"]);
  });

  it("lists children and grandchildren with recursive sizes, leaving out hidden names", async () => {
    const store = redis.store();
    const files: Record<string, string> = {
      "/memories/top.txt": "12345",
      "/memories/a/one.txt": "1",
      "/memories/a/b/two.txt": "22",
      "/memories/a/b/c/three.txt": "333",
      "/memories/a/.hidden/h.txt": "hhhh",
      "/memories/a/b/node_modules/m.txt": "mmmmm",
      "/memories/.git/config": "cccccc",
      "/memories/a/.dotfile": "dd",
    };
    for (const [path, content] of Object.entries(files)) {
      await store.write(path, bytes(content), { ifAbsent: true });
    }
    expect(sortedListing(await store.list("/memories", 2))).toEqual({
      size: 11,
      entries: [
        { path: "/memories/a", kind: "directory", size: 6, depth: 1 },
        { path: "/memories/a/b", kind: "directory", size: 5, depth: 2 },
        { path: "/memories/a/one.txt", kind: "file", size: 1, depth: 2 },
        { path: "/memories/top.txt", kind: "file", size: 5, depth: 1 },
      ],
    });
    // A hidden directory viewed by its own path counts what lies beneath it.
    expect(await store.list("/memories/.git", 2)).toEqual({
      size: 6,
      entries: [{ path: "/memories/.git/config", kind: "file", size: 6, depth: 1 }],
    });
    expect(sortedListing(await store.list("/memories/a/b", 1))).toEqual({
      size: 5,
      entries: [
        { path: "/memories/a/b/c", kind: "directory", size: 3, depth: 1 },
        { path: "/memories/a/b/two.txt", kind: "file", size: 2, depth: 1 },
      ],
    });
    expect(await store.list("/memories/top.txt", 2)).toBeNull();
    expect(await store.list("/memories/missing", 2)).toBeNull();
  });

  it("deletes a directory with everything beneath it and keeps the sizes above right", async () => {
    const store = redis.store();
    await store.write("/memories/keep.txt", bytes("k"), { ifAbsent: true });
    await store.write("/memories/x/y/z.txt", bytes("zz"), { ifAbsent: true });
    await store.write("/memories/x/y/.h/w", bytes("www"), { ifAbsent: true });
    await store.write("/memories/x/v.txt", bytes("vvvv"), { ifAbsent: true });
    expect((await store.list("/memories", 1))?.size).toBe(7);
    expect(await store.delete("/memories/x")).toBe(true);
    expect(await store.delete("/memories/x")).toBe(false);
    expect(await store.stat("/memories/x/y/z.txt")).toBeNull();
    expect(await store.list("/memories", 2)).toEqual({
      size: 1,
      entries: [{ path: "/memories/keep.txt", kind: "file", size: 1, depth: 1 }],
    });
    expect(await keysOf(store)).toEqual([
      "c",
      "d:/memories",
      "f:/memories/keep.txt",
      "n",
      "o:/memories",
      "seq",
      "u",
      "z",
    ]);
    expect(await indexProblems(store)).toEqual([]);
  });

  it("renames files and whole directories atomically, never overwriting", async () => {
    const store = redis.store();
    await store.write("/memories/src/a.txt", bytes("aaa"), { ifAbsent: true });
    await store.write("/memories/src/deep/b.txt", bytes("bb"), { ifAbsent: true });
    await store.write("/memories/other.txt", bytes("o"), { ifAbsent: true });
    const before = await store.read("/memories/src/deep/b.txt");

    await expect(store.rename("/memories/src", "/memories/other.txt")).rejects.toBeInstanceOf(
      AlreadyExistsError,
    );
    await expect(store.rename("/memories/nope", "/memories/x")).rejects.toBeInstanceOf(NotFoundError);
    const notDir = await store.rename("/memories/src", "/memories/other.txt/x").catch((e: unknown) => e);
    expect(notDir).toBeInstanceOf(NotADirectoryError);
    expect((notDir as NotADirectoryError).ancestor).toBe("/memories/other.txt");

    await store.rename("/memories/src", "/memories/new/place");
    expect(await store.stat("/memories/src")).toBeNull();
    const moved = await store.read("/memories/new/place/deep/b.txt");
    expect(moved).toEqual(before);
    expect(sortedListing(await store.list("/memories", 2))).toEqual({
      size: 6,
      entries: [
        { path: "/memories/new", kind: "directory", size: 5, depth: 1 },
        { path: "/memories/new/place", kind: "directory", size: 5, depth: 2 },
        { path: "/memories/other.txt", kind: "file", size: 1, depth: 1 },
      ],
    });

    await store.rename("/memories/new/place/a.txt", "/memories/.hidden.txt");
    expect((await store.list("/memories", 1))?.size).toBe(3);
    await store.rename("/memories/new", "/memories/.new");
    expect(await store.list("/memories", 2)).toEqual({
      size: 1,
      entries: [{ path: "/memories/other.txt", kind: "file", size: 1, depth: 1 }],
    });
    expect((await store.list("/memories/.new", 1))?.size).toBe(2);
  });

  it("refuses to move a directory into itself", async () => {
    const store = redis.store();
    await store.write("/memories/d/f", bytes("x"), { ifAbsent: true });
    await expect(store.rename("/memories/d", "/memories/d/e")).rejects.toThrow(/into itself/);
    expect(await store.stat("/memories/d/f")).toEqual({ kind: "file", size: 1 });
  });
});

describe("isolation and concurrency", () => {
  it("keeps stores with different prefixes apart on one server", async () => {
    const one = redis.store();
    const two = redis.store();
    await one.write("/memories/secret.txt", bytes("one"), { ifAbsent: true });
    await two.write("/memories/secret.txt", bytes("two!"), { ifAbsent: true });
    expect(textOf((await one.read("/memories/secret.txt"))!.data)).toBe("one");
    expect(textOf((await two.read("/memories/secret.txt"))!.data)).toBe("two!");
    await one.write("/memories/only-one/x", bytes("x"), { ifAbsent: true });
    expect(await two.stat("/memories/only-one")).toBeNull();
    expect((await two.list("/memories", 2))?.entries.map((entry) => entry.path)).toEqual([
      "/memories/secret.txt",
    ]);
    await one.delete("/memories");
    expect(textOf((await two.read("/memories/secret.txt"))!.data)).toBe("two!");
  });

  it("lets exactly one of many concurrent compare-and-set writers win, across connections", async () => {
    const store = redis.store();
    const peers = [store, redis.peer(store), redis.peer(store)];
    const { version } = await store.write("/memories/counter", bytes("0"), { ifAbsent: true });
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        peers[i % peers.length]!.write("/memories/counter", bytes(`w${i}`), { ifVersion: version }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(rejected).toHaveLength(11);
    for (const r of rejected) expect(r.reason).toBeInstanceOf(ConflictError);

    const creates = await Promise.allSettled(
      peers.map((peer, i) => peer.write("/memories/once", bytes(`c${i}`), { ifAbsent: true })),
    );
    expect(creates.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });
});

// A deterministic pseudo-random walk over a small name space, run against a RedisStore and the
// reference InMemoryStore side by side: every outcome and the whole visible state must agree, which
// checks the directory index and the maintained sizes against sizes computed from scratch.
describe("model check against InMemoryStore", () => {
  const NAMES = ["a", "b", ".h", "node_modules", "x y", "é"];

  const prng = (seed: number) => () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };

  const outcome = async (run: () => Promise<unknown>): Promise<string> => {
    try {
      const value = await run();
      return typeof value === "boolean" ? `ok:${value}` : "ok";
    } catch (error) {
      const e = error as Error & { ancestor?: string };
      return `${e.name}${e.ancestor ? `:${e.ancestor}` : ""}`;
    }
  };

  const allPaths = (maxDepth: number): string[] => {
    const out: string[] = [];
    const visit = (prefix: string, depth: number) => {
      if (depth > maxDepth) return;
      for (const name of NAMES) {
        const path = `${prefix}/${name}`;
        out.push(path);
        visit(path, depth + 1);
      }
    };
    visit("/memories", 1);
    return out;
  };
  const universe = allPaths(3);

  const compareState = async (subject: MemoryStore, model: MemoryStore) => {
    for (const path of ["/memories", ...universe]) {
      const [s, m] = await Promise.all([subject.stat(path), model.stat(path)]);
      expect(s, `stat ${path}`).toEqual(m);
      if (m?.kind === "directory") {
        for (const depth of [1, 2]) {
          expect(sortedListing(await subject.list(path, depth)), `list ${path}`).toEqual(
            sortedListing(await model.list(path, depth)),
          );
        }
      } else if (m?.kind === "file") {
        expect((await subject.read(path))?.data, `read ${path}`).toEqual((await model.read(path))?.data);
      }
    }
  };

  for (const seed of [1, 2, 3]) {
    it(`agrees on a random walk (seed ${seed})`, async () => {
      const random = prng(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const subject = redis.store();
      const model = new InMemoryStore();
      for (let step = 0; step < 150; step++) {
        const path = pick(universe);
        const roll = random();
        let what: string;
        let run: (store: MemoryStore) => Promise<unknown>;
        if (roll < 0.45) {
          const content = bytes("z".repeat(Math.floor(random() * 40)));
          what = `create ${path}`;
          run = (store) => store.write(path, content, { ifAbsent: true });
        } else if (roll < 0.6) {
          const content = bytes("e".repeat(Math.floor(random() * 40)));
          what = `edit ${path}`;
          run = async (store) => {
            const current = await store.read(path);
            if (!current) return "missing";
            return store.write(path, content, { ifVersion: current.version });
          };
        } else if (roll < 0.78) {
          what = `delete ${path}`;
          run = (store) => store.delete(path);
        } else {
          const to = pick(universe);
          if (to === path || to.startsWith(`${path}/`)) continue;
          what = `rename ${path} ${to}`;
          run = (store) => store.rename(path, to);
        }
        const [s, m] = [await outcome(() => run(subject)), await outcome(() => run(model))];
        expect(s, what).toBe(m);
        if (step % 10 === 9) await compareState(subject, model);
      }
      await compareState(subject, model);
      expect(await indexProblems(subject)).toEqual([]);
      // The size index holds no zero or stale entries.
      const sizes = await subject.client.hgetall(`${subject.keyBase}z`);
      for (const [dir, size] of Object.entries(sizes)) {
        expect(Number(size), dir).toBeGreaterThan(0);
        expect(await subject.stat(dir), dir).toEqual({ kind: "directory" });
      }
    });
  }
});

describe("index checker", () => {
  it("notices a corrupted index, so its clean verdicts mean something", async () => {
    const store = redis.store();
    await store.write("/memories/a/b.txt", bytes("xyz"), { ifAbsent: true });
    expect(await indexProblems(store)).toEqual([]);
    await store.client.hset(`${store.keyBase}z`, "/memories/a", "4");
    await store.client.hset(`${store.keyBase}d:/memories/ghost`, "f", "f");
    expect(await indexProblems(store)).toEqual([
      "stale directory /memories/ghost",
      "size of /memories/a is 4, expected 3",
    ]);
  });
});

describe("construction", () => {
  it("creates and closes its own client from a URL", async () => {
    const store = new RedisStore({ url: redis.server.url, prefix: redis.freshPrefix() });
    await store.write("/memories/u", bytes("u"), { ifAbsent: true });
    expect(textOf((await store.read("/memories/u"))!.data)).toBe("u");
    await store.close();
    expect(store.client.status).toBe("end");
  });

  it("leaves a client it was given open", async () => {
    const client = redis.client();
    const store = new RedisStore({ client, prefix: redis.freshPrefix() });
    await store.close();
    expect(await client.ping()).toBe("PONG");
  });

  it("rejects a bad ttl", () => {
    expect(() => new RedisStore({ client: redis.client(), ttlSeconds: -1 })).toThrow(/ttlSeconds/);
  });
});
