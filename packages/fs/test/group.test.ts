import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type BytesChange, ConflictError, executeCommand, StoreFailureError } from "@mem/core";
import { FsStore } from "@mem/fs";
import { describe, expect, it } from "vitest";
import type { Dir } from "../src/dir.js";
import { submit, submitEdit } from "../src/group.js";
import { bytes, tempDir, text } from "./helpers/files.js";

// Changes queued by one process while the lock is held run together under the next hold; edits of
// distinct files at once. Each caller still gets its own result, after the lock is released.
describe("group commit", () => {
  it("gives each change its own result, in queue order, with nothing lost", async () => {
    const root = join(tempDir(), "memories");
    const stores = Array.from({ length: 16 }, () => new FsStore({ root }));
    const reader = new FsStore({ root });
    await Promise.all(
      stores.map((store, i) => store.write(`/memories/agent-${i}.md`, bytes(""), { ifAbsent: true })),
    );
    await reader.write("/memories/shared.md", bytes(""), { ifAbsent: true });
    const edits = stores.flatMap((store, i) =>
      Array.from({ length: 10 }, (_, k) => [
        executeCommand(store, {
          command: "insert",
          path: `/memories/agent-${i}.md`,
          insert_line: 0,
          insert_text: `a${k}`,
        }),
        executeCommand(store, {
          command: "insert",
          path: "/memories/shared.md",
          insert_line: 0,
          insert_text: `s${i}-${k}`,
        }),
      ]).flat(),
    );
    const results = await Promise.all(edits);
    expect(results.every((r) => !r.isError)).toBe(true);
    for (let i = 0; i < 16; i++) {
      const lines = (text((await reader.read(`/memories/agent-${i}.md`))?.data) ?? "")
        .split("\n")
        .filter(Boolean);
      // One agent's inserts at line 0 of its own file ran in the order they were queued.
      expect(lines).toEqual(Array.from({ length: 10 }, (_, k) => `a${9 - k}`));
    }
    const shared = (text((await reader.read("/memories/shared.md"))?.data) ?? "").split("\n").filter(Boolean);
    expect(shared.sort()).toEqual(
      Array.from({ length: 16 }, (_, i) => Array.from({ length: 10 }, (_, k) => `s${i}-${k}`))
        .flat()
        .sort(),
    );
    // Lock and temporary files are gone by the time the callers hear back.
    expect(readdirSync(root).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("fails a change on its own, and runs a create before an edit of the same file queued after it", async () => {
    const store = new FsStore({ root: join(tempDir(), "memories") });
    await store.write("/memories/a.md", bytes("a"), { ifAbsent: true });
    const [stale, fine, created, edited] = await Promise.allSettled([
      store.write("/memories/a.md", bytes("x"), { ifVersion: "not-the-version" }),
      store.update("/memories/a.md", () => bytes("A")),
      store.write("/memories/b.md", bytes("b"), { ifAbsent: true }),
      store.update("/memories/b.md", (current) => bytes(`${text(current)}B`)),
    ]);
    expect(stale.status === "rejected" && stale.reason).toBeInstanceOf(ConflictError);
    expect(fine).toEqual({ status: "fulfilled", value: true });
    expect(created.status).toBe("fulfilled");
    expect(edited).toEqual({ status: "fulfilled", value: true });
    expect(text((await store.read("/memories/a.md"))?.data)).toBe("A");
    expect(text((await store.read("/memories/b.md"))?.data)).toBe("bB");
  });

  it("applies edits of one file queued together with one read and one write, in queue order", async () => {
    const root = join(tempDir(), "memories");
    const stores = Array.from({ length: 8 }, () => new FsStore({ root }));
    await stores[0]!.write("/memories/log.md", bytes(""), { ifAbsent: true });
    const edits = stores.flatMap((store, i) =>
      Array.from({ length: 5 }, (_, k) =>
        store.update("/memories/log.md", (current) => bytes(`${text(current)}${i}.${k}\n`)),
      ),
    );
    const broken = stores[3]!.update("/memories/log.md", () => {
      throw new Error("a change that throws");
    });
    const late = stores[5]!.update("/memories/log.md", (current) => bytes(`${text(current)}last\n`));
    expect(await Promise.all(edits)).toEqual(edits.map(() => true));
    await expect(broken).rejects.toBeInstanceOf(StoreFailureError);
    expect(await late).toBe(true);
    // Every edit saw the ones queued before it: nothing lost, queue order kept, the thrown one absent.
    const expected = stores.flatMap((_, i) => Array.from({ length: 5 }, (_, k) => `${i}.${k}\n`)).join("");
    expect(text((await stores[0]!.read("/memories/log.md"))?.data)).toBe(`${expected}last\n`);
    expect(readdirSync(root).filter((name) => name.startsWith("."))).toEqual([]);
  });

  it("gives every edit false when the file is gone, and none of them a write", async () => {
    const store = new FsStore({ root: join(tempDir(), "memories") });
    await store.write("/memories/a.md", bytes("a"), { ifAbsent: true });
    let called = 0;
    const change = (current: Uint8Array) => {
      called++;
      return bytes(`${text(current)}!`);
    };
    const gone = store.delete("/memories/a.md");
    const found = await Promise.all([
      store.update("/memories/a.md", change),
      store.update("/memories/a.md", change),
    ]);
    expect(await gone).toBe(true);
    expect(found).toEqual([false, false]);
    expect(called).toBe(0);
  });
});

// The queue itself, with a root that is never opened: how many reads and writes the edits share.
describe("submitEdit", () => {
  const key = () => `/queue/${Math.random()}`;
  const root = {} as Dir;
  const hold = (batch: (root: Dir) => Promise<void>) => batch(root);
  /** An `apply` over one in-memory file that counts its calls. */
  const file = (initial: string) => {
    const state = { data: bytes(initial) as Uint8Array | null, applies: 0 };
    const apply = async (_root: Dir, change: BytesChange) => {
      state.applies++;
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (!state.data) return false;
      const next = change(state.data);
      if (next) state.data = next;
      return true;
    };
    return { state, apply };
  };
  const append =
    (line: string): BytesChange =>
    (current) =>
      bytes(`${text(current)}${line}`);
  /** Holds the queue of `k` until the returned function is called. */
  const blocker = (k: string) => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    const held = submit(k, "exclusive", hold, () => opened);
    return { held, open };
  };

  it("runs ten edits queued behind a change as one apply", async () => {
    const k = key();
    const { state, apply } = file("");
    const { held, open } = blocker(k);
    const edits = Array.from({ length: 10 }, (_, i) =>
      submitEdit(k, "/memories/a.md", "a", hold, append(`${i}`), apply),
    );
    open();
    await held;
    expect(await Promise.all(edits)).toEqual(edits.map(() => true));
    expect(state.applies).toBe(1);
    expect(text(state.data ?? undefined)).toBe("0123456789");
  });

  it("keeps apart edits of other keys, and edits with a change of the same file between them", async () => {
    const k = key();
    const a = file("");
    const b = file("");
    const { held, open } = blocker(k);
    const order: string[] = [];
    const results = [
      submitEdit(k, "/memories/a.md", "a", hold, append("1"), a.apply),
      submitEdit(k, "/memories/b.md", "b", hold, append("1"), b.apply),
      submitEdit(k, "/memories/a.md", "other-store:a", hold, append("2"), a.apply),
      submitEdit(k, "/memories/b.md", "b", hold, append("2"), b.apply),
      submit(k, { edit: "/memories/a.md" }, hold, async () => {
        order.push(`write saw ${text(a.state.data ?? undefined)}`);
        a.state.data = bytes("w");
      }),
      submitEdit(k, "/memories/a.md", "a", hold, append("3"), a.apply),
      submitEdit(k, "/memories/a.md", "a", hold, append("4"), a.apply),
    ];
    open();
    await held;
    await Promise.all(results);
    // a: "1" alone, "2" alone (another key), the write, then "3" and "4" together; b: one apply.
    expect(a.state.applies).toBe(3);
    expect(b.state.applies).toBe(1);
    expect(order).toEqual(["write saw 12"]);
    expect(text(a.state.data ?? undefined)).toBe("w34");
    expect(text(b.state.data ?? undefined)).toBe("12");
  });

  it("fails every edit of a shared write that failed, and only the edit whose change threw", async () => {
    const k = key();
    const { held, open } = blocker(k);
    const failing = async (_root: Dir, change: BytesChange) => {
      change(bytes(""));
      throw new Error("disk full");
    };
    const thrown = new Error("bad change");
    const results = Promise.allSettled([
      submitEdit(k, "/memories/a.md", "a", hold, append("1"), failing),
      submitEdit(
        k,
        "/memories/a.md",
        "a",
        hold,
        () => {
          throw thrown;
        },
        failing,
      ),
      submitEdit(k, "/memories/a.md", "a", hold, append("3"), failing),
    ]);
    open();
    await held;
    const [first, second, third] = await results;
    expect(first).toMatchObject({ status: "rejected", reason: { message: "disk full" } });
    expect(second).toEqual({ status: "rejected", reason: thrown });
    expect(third).toMatchObject({ status: "rejected", reason: { message: "disk full" } });
  });
});
