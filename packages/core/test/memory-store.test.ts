import { describe, expect, it } from "vitest";
import { AlreadyExistsError, InMemoryStore, NotADirectoryError, NotFoundError } from "../src/index.js";
import { expectWriteConditions } from "./helpers/write-conditions.js";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("InMemoryStore", () => {
  it("keeps directories implicit", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/a/b/c", bytes("x"), { ifAbsent: true });
    expect(await store.stat("/memories/a")).toEqual({ kind: "directory" });
    expect(await store.stat("/memories/a/b/c")).toEqual({ kind: "file", size: 1 });
    expect(await store.delete("/memories/a/b/c")).toBe(true);
    expect(await store.stat("/memories/a")).toBeNull();
    expect(await store.stat("/memories")).toEqual({ kind: "directory" });
    expect(await store.list("/memories", 2)).toEqual({ size: 0, entries: [] });
  });

  it("enforces write conditions", async () => {
    const store = new InMemoryStore();
    await expectWriteConditions(store);
  });

  it("renames files and directories without overwriting", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/d/x", bytes("x"), { ifAbsent: true });
    await store.write("/memories/d/y/z", bytes("z"), { ifAbsent: true });
    await store.write("/memories/e", bytes("e"), { ifAbsent: true });
    await expect(store.rename("/memories/d", "/memories/e")).rejects.toBeInstanceOf(AlreadyExistsError);
    await expect(store.rename("/memories/nope", "/memories/q")).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.rename("/memories/d", "/memories/e/q")).rejects.toBeInstanceOf(NotADirectoryError);
    await store.rename("/memories/d", "/memories/n/m");
    expect(await store.stat("/memories/d")).toBeNull();
    expect(new TextDecoder().decode((await store.read("/memories/n/m/y/z"))!.data)).toBe("z");
  });

  it("does not share buffers with callers", async () => {
    const store = new InMemoryStore();
    const data = bytes("abc");
    await store.write("/memories/f", data, { ifAbsent: true });
    data[0] = 0x7a;
    const read = await store.read("/memories/f");
    read!.data[1] = 0x7a;
    expect(new TextDecoder().decode((await store.read("/memories/f"))!.data)).toBe("abc");
  });
});
