import { InMemoryStore } from "@mem/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { headerKeyId, InterruptingStore, run, seed, testKey } from "./helpers.js";

const KEY = testKey(1);
const JOURNAL = "/memories/.mem-encrypted/renames";
const FILES: Record<string, string> = {
  "/memories/d/a.md": "alpha\n",
  "/memories/d/.hidden": "hidden\n",
  "/memories/d/sub/b.md": "beta\n",
  "/memories/d/node_modules/m.js": "module\n",
};
const text = (data: Uint8Array | undefined) => (data ? new TextDecoder().decode(data) : undefined);
const moved = (path: string, to = "/memories/e") => path.replace("/memories/d", to);

/** Every file opens at its new path with no journal to fall back on: it was re-encrypted for that path. */
const expectRebound = async (
  inner: InMemoryStore | InterruptingStore,
  files: Record<string, string>,
  { journalEmpty = true } = {},
) => {
  if (journalEmpty) {
    const journal = await new EncryptedStore(inner, { key: KEY }).read(JOURNAL);
    expect(journal === null || text(journal.data) === "[]").toBe(true);
  }
  await inner.delete(JOURNAL);
  const fresh = new EncryptedStore(inner, { key: KEY });
  for (const [path, content] of Object.entries(files))
    expect(text((await fresh.read(path))?.data), path).toBe(content);
};

describe("rename re-encrypts for the new path", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("moves a file: the new ciphertext opens at its new path only", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { "/memories/a.txt": "content\n" });
    const before = (await inner.read("/memories/a.txt"))!.data;
    expect(
      await run(store, { command: "rename", old_path: "/memories/a.txt", new_path: "/memories/x/.b" }),
    ).toEqual({ content: "Successfully renamed /memories/a.txt to /memories/x/.b", isError: false });
    expect(await inner.stat("/memories/a.txt")).toBeNull();
    expect(Buffer.from((await inner.read("/memories/x/.b"))!.data).equals(Buffer.from(before))).toBe(false);
    await expectRebound(inner, { "/memories/x/.b": "content\n" });
  });

  it("moves a directory with hidden and node_modules files, all re-encrypted", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, FILES);
    expect(
      (await run(store, { command: "rename", old_path: "/memories/d", new_path: "/memories/e/f" })).isError,
    ).toBe(false);
    expect(await inner.stat("/memories/d")).toBeNull();
    await expectRebound(
      inner,
      Object.fromEntries(Object.entries(FILES).map(([p, c]) => [moved(p, "/memories/e/f"), c])),
    );
  });

  it("moves into a hidden directory, and the moved files can still be rotated and renamed", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, FILES);
    await store.rename("/memories/d", "/memories/.archive/d");
    await store.rename("/memories/.archive", "/memories/back");
    const rotating = new EncryptedStore(inner, {
      keyring: { keys: { default: KEY, k2: testKey(2) }, active: "k2" },
    });
    await rotating.rotate();
    for (const [path, content] of Object.entries(FILES)) {
      const now = moved(path, "/memories/back/d");
      expect(headerKeyId((await inner.read(now))!.data), now).toBe("k2");
      expect(text((await rotating.read(now))?.data)).toBe(content);
    }
  });

  it("two concurrent renames of one file: exactly one wins, as on the inner store", async () => {
    const inner = new InMemoryStore();
    const [a, b] = [new EncryptedStore(inner, { key: KEY }), new EncryptedStore(inner, { key: KEY })];
    await seed(a, { "/memories/f": "only once\n" });
    const results = await Promise.allSettled([
      a.rename("/memories/f", "/memories/g"),
      b.rename("/memories/f", "/memories/h"),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "NOT_FOUND" } });
    const survivors = ["/memories/f", "/memories/g", "/memories/h"].filter((p) => p !== "/memories/f");
    const present = [];
    for (const p of survivors) if (await a.read(p)) present.push(p);
    expect(present).toHaveLength(1);
    await expectRebound(inner, { [present[0]!]: "only once\n" });
  });

  it("keeps an edit made right after the inner move, before re-encryption", async () => {
    const inner = new InterruptingStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { "/memories/a.txt": "v1\n" });
    let edited = false;
    const other = new EncryptedStore(inner.inner, { key: KEY });
    inner.afterRename = async () => {
      edited = true;
      const edit = await run(other, {
        command: "str_replace",
        path: "/memories/b.txt",
        old_str: "v1",
        new_str: "v2",
      });
      expect(edit).toMatchObject({ isError: false });
    };
    await store.rename("/memories/a.txt", "/memories/b.txt");
    expect(edited).toBe(true);
    await expectRebound(inner, { "/memories/b.txt": "v2\n" });
  });

  it("an interrupted rename leaves every file readable, and the next instance finishes it", async () => {
    let completedAt = -1;
    const interruptions = { beforeMove: 0, afterMove: 0 };
    for (let allowed = 0; completedAt < 0; allowed++) {
      const inner = new InterruptingStore();
      const store = new EncryptedStore(inner, { key: KEY });
      await seed(store, FILES);
      inner.interruptAfter(allowed);
      const result = await run(store, {
        command: "rename",
        old_path: "/memories/d",
        new_path: "/memories/e",
      });
      if (!result.isError) {
        completedAt = allowed;
        break;
      }
      expect(result.content).toBe("Error: rename failed for /memories/d: connection reset");
      const movedYet = (await inner.stat("/memories/e")) !== null;
      interruptions[movedYet ? "afterMove" : "beforeMove"]++;
      for (const [path, content] of Object.entries(FILES)) {
        const now = movedYet ? moved(path) : path;
        expect(text((await store.read(now))?.data), `${now} after ${allowed} writes`).toBe(content);
      }
      inner.heal();
      const restarted = new EncryptedStore(inner, { key: KEY });
      await restarted.ready;
      if (!movedYet) {
        expect(await restarted.rename("/memories/d", "/memories/e")).toBeUndefined();
      }
      expect(await inner.stat("/memories/d")).toBeNull();
      await expectRebound(inner, Object.fromEntries(Object.entries(FILES).map(([p, c]) => [moved(p), c])));
    }
    expect(completedAt).toBeGreaterThan(4);
    expect(interruptions.beforeMove).toBeGreaterThan(1);
    expect(interruptions.afterMove).toBeGreaterThan(2);
  });

  it("the same instance finishes an interrupted rename before its next rename, or on recover()", async () => {
    const inner = new InterruptingStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { ...FILES, "/memories/z.txt": "z\n" });
    inner.interruptAfter(3);
    await expect(store.rename("/memories/d", "/memories/e")).rejects.toMatchObject({
      reason: "connection reset",
    });
    inner.heal();
    await store.rename("/memories/z.txt", "/memories/y.txt");
    expect(text((await store.read(JOURNAL))?.data)).toBe("[]");

    inner.interruptAfter(3);
    await expect(store.rename("/memories/e", "/memories/g")).rejects.toMatchObject({
      reason: "connection reset",
    });
    inner.heal();
    expect(await store.recover()).toBe(1);
    expect(await store.recover()).toBe(0);
    await expectRebound(inner, {
      ...Object.fromEntries(Object.entries(FILES).map(([p, c]) => [moved(p, "/memories/g"), c])),
      "/memories/y.txt": "z\n",
    });
  });

  it("leaves nothing in the journal when the inner store refuses the rename", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { "/memories/a/1": "1", "/memories/b/2": "2", "/memories/file": "f" });
    await expect(store.rename("/memories/a", "/memories/b")).rejects.toMatchObject({
      code: "ALREADY_EXISTS",
    });
    await expect(store.rename("/memories/a", "/memories/file/x")).rejects.toMatchObject({
      code: "NOT_A_DIRECTORY",
      ancestor: "/memories/file",
    });
    await expect(store.rename("/memories/nope", "/memories/c")).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(text((await store.read(JOURNAL))?.data)).toBe("[]");
    expect(text((await store.read("/memories/a/1"))?.data)).toBe("1");
  });

  it("a journal entry does not let a ciphertext be swapped in from outside the moved tree", async () => {
    const inner = new InterruptingStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { ...FILES, "/memories/other/a.md": "other\n" });
    inner.interruptAfter(3); // index, journal, inner move: done; nothing re-encrypted yet
    await expect(store.rename("/memories/d", "/memories/e")).rejects.toMatchObject({
      reason: "connection reset",
    });
    inner.heal();
    expect(await inner.stat("/memories/d")).toBeNull();
    expect(text((await store.read("/memories/e/a.md"))?.data)).toBe("alpha\n");
    const foreign = (await inner.read("/memories/other/a.md"))!.data;
    const current = (await inner.read("/memories/e/a.md"))!;
    await inner.write("/memories/e/a.md", foreign, { ifVersion: current.version });
    expect((await run(store, { command: "view", path: "/memories/e/a.md" })).content).toMatch(
      /^Error: view failed for \/memories\/e\/a.md: integrity check failed: /,
    );
  });

  it("re-encrypts moved files under the active key", async () => {
    const inner = new InMemoryStore();
    const old = new EncryptedStore(inner, { keyring: { keys: { k1: KEY }, active: "k1" } });
    await seed(old, { "/memories/a.txt": "a" });
    const store = new EncryptedStore(inner, { keyring: { keys: { k1: KEY, k2: testKey(2) }, active: "k2" } });
    await store.rename("/memories/a.txt", "/memories/b.txt");
    expect(headerKeyId((await inner.read("/memories/b.txt"))!.data)).toBe("k2");
  });

  it("clears a journal entry abandoned before the move, after which old-path ciphertexts do not open", async () => {
    const inner = new InterruptingStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { "/memories/d/a.md": "a\n" });
    inner.interruptAfter(1); // the journal entry is written, then the inner move fails on an outage
    await expect(store.rename("/memories/d", "/memories/e")).rejects.toMatchObject({
      reason: "connection reset",
    });
    inner.heal();
    // Within the window the entry stays: the rename may be about to run on another instance.
    expect(await store.recover()).toBe(0);
    expect(text((await store.read(JOURNAL))?.data)).not.toBe("[]");
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + 11 * 60 * 1000);
    await store.recover();
    expect(text((await store.read(JOURNAL))?.data)).toBe("[]");
    await inner.write("/memories/e/a.md", (await inner.read("/memories/d/a.md"))!.data, { ifAbsent: true });
    expect((await run(store, { command: "view", path: "/memories/e/a.md" })).content).toMatch(
      /^Error: view failed for \/memories\/e\/a.md: integrity check failed: the ciphertext does not authenticate/,
    );
    expect(text((await store.read("/memories/d/a.md"))?.data)).toBe("a\n");
  });

  it("re-encrypts what a cut-off non-atomic inner rename already copied, and keeps its entry", async () => {
    const inner = new InterruptingStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { "/memories/d/a.md": "a\n", "/memories/d/b.md": "b\n" });
    inner.interruptAfter(1);
    await expect(store.rename("/memories/d", "/memories/e")).rejects.toMatchObject({
      reason: "connection reset",
    });
    inner.heal();
    // As if the inner store had copied one file of the directory before failing.
    await inner.write("/memories/e/a.md", (await inner.read("/memories/d/a.md"))!.data, { ifAbsent: true });
    vi.spyOn(Date, "now").mockReturnValue(Date.now() + 11 * 60 * 1000);
    expect(await store.recover()).toBe(0);
    expect(JSON.parse(text((await store.read(JOURNAL))?.data)!)).toHaveLength(1);
    await expectRebound(
      inner,
      { "/memories/e/a.md": "a\n", "/memories/d/a.md": "a\n", "/memories/d/b.md": "b\n" },
      { journalEmpty: false },
    );
  });

  it("renames a file without the journal and leaves no parked source behind", async () => {
    const inner = new InterruptingStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { "/memories/a.txt": "content\n" });
    const parked: string[] = [];
    inner.afterRename = async (_from, to) => {
      parked.push(to);
    };
    await store.rename("/memories/a.txt", "/memories/b/c.txt");
    expect(parked).toHaveLength(1);
    expect(parked[0]).toMatch(/^\/memories\/\.mem-encrypted-moving-[0-9a-f]{16}$/);
    expect(await inner.stat(parked[0]!)).toBeNull();
    expect(await inner.stat("/memories/a.txt")).toBeNull();
    expect(await inner.stat(JOURNAL)).toBeNull();
    expect(text((await store.read("/memories/b/c.txt"))?.data)).toBe("content\n");
  });

  it("a file rename cut off after the copy leaves both paths readable, and no journal", async () => {
    const inner = new InterruptingStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { "/memories/a.txt": "content\n" });
    inner.interruptAfter(1);
    await expect(store.rename("/memories/a.txt", "/memories/b.txt")).rejects.toMatchObject({
      reason: "connection reset",
    });
    inner.heal();
    expect(await inner.stat(JOURNAL)).toBeNull();
    await expectRebound(inner, { "/memories/a.txt": "content\n", "/memories/b.txt": "content\n" });
  });

  it("the loser of two concurrent file renames removes its copy", async () => {
    const inner = new InterruptingStore();
    const [a, b] = [new EncryptedStore(inner, { key: KEY }), new EncryptedStore(inner, { key: KEY })];
    await seed(a, { "/memories/f": "once\n" });
    await b.ready;
    // Both copies exist before either rename claims the source.
    const written: string[] = [];
    let copied: () => void = () => {};
    const bothCopied = new Promise<void>((resolve) => {
      copied = resolve;
    });
    let racing: Promise<void> | undefined;
    inner.afterWrite = async (path) => {
      written.push(path);
      if (path === "/memories/g") {
        racing = b.rename("/memories/f", "/memories/h");
        await bothCopied;
      }
      if (path === "/memories/h") copied();
    };
    const results = await Promise.allSettled([
      a.rename("/memories/f", "/memories/g"),
      bothCopied.then(() => racing),
    ]);
    inner.afterWrite = undefined;
    expect(written).toEqual(["/memories/g", "/memories/h"]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "NOT_FOUND" } });
    expect(await inner.stat("/memories/f")).toBeNull();
    const present = [];
    for (const p of ["/memories/g", "/memories/h"]) if (await inner.stat(p)) present.push(p);
    expect(present).toHaveLength(1);
    await expectRebound(inner, { [present[0]!]: "once\n" });
  });

  it("carries over an edit that reached the source after it was copied", async () => {
    const inner = new InterruptingStore();
    const store = new EncryptedStore(inner, { key: KEY });
    const other = new EncryptedStore(inner.inner, { key: KEY });
    await seed(store, { "/memories/a.txt": "v1\n" });
    inner.afterWrite = async (path) => {
      if (path !== "/memories/b.txt") return;
      inner.afterWrite = undefined;
      const edit = await run(other, {
        command: "str_replace",
        path: "/memories/a.txt",
        old_str: "v1",
        new_str: "v2",
      });
      expect(edit.isError).toBe(false);
    };
    await store.rename("/memories/a.txt", "/memories/b.txt");
    expect(await inner.stat("/memories/a.txt")).toBeNull();
    await expectRebound(inner, { "/memories/b.txt": "v2\n" });
  });

  it("keeps both files when the source and the copy are both edited during the rename", async () => {
    const inner = new InterruptingStore();
    const store = new EncryptedStore(inner, { key: KEY });
    const other = new EncryptedStore(inner.inner, { key: KEY });
    await seed(store, { "/memories/a.txt": "v1\n" });
    inner.afterWrite = async (path) => {
      if (path !== "/memories/b.txt") return;
      inner.afterWrite = undefined;
      await run(other, { command: "str_replace", path: "/memories/a.txt", old_str: "v1", new_str: "source" });
      await run(other, { command: "str_replace", path: "/memories/b.txt", old_str: "v1", new_str: "copy" });
    };
    const failure = await store.rename("/memories/a.txt", "/memories/b.txt").catch((e: unknown) => e);
    expect(failure).toMatchObject({
      reason: "/memories/a.txt and /memories/b.txt were both edited during the rename; both were kept",
    });
    await expectRebound(inner, { "/memories/a.txt": "source\n", "/memories/b.txt": "copy\n" });
  });
});
