import { describe, expect, it } from "vitest";
import {
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  type PathLimits,
  validatePath,
} from "../src/index.js";

const limits: PathLimits = { maxDepth: 3, refusesName: (name) => /[\p{Cf}\u2028\u2029]/u.test(name) };

class LimitedStore extends InMemoryStore {
  readonly pathLimits = limits;
}

describe("store-declared path limits (SPEC §2)", () => {
  it("refuses a path deeper than the store's limit, naming the limit", () => {
    expect(validatePath("/memories/a/b/c", { pathLimits: limits })).toEqual({
      ok: true,
      path: "/memories/a/b/c",
    });
    expect(validatePath("/memories/a/b/c/d", { pathLimits: limits })).toEqual({
      ok: false,
      error: "Error: The path /memories/a/b/c/d is not allowed: it is more than 3 levels deep",
    });
    // A trailing slash is not a level.
    expect(validatePath("/memories/a/b/c/", { pathLimits: limits }).ok).toBe(true);
  });

  it("refuses a name holding a character the store cannot store", () => {
    expect(validatePath("/memories/a\u200bb", { pathLimits: limits })).toEqual({
      ok: false,
      error:
        "Error: The path /memories/a\u200bb is not allowed: it contains a character this memory cannot store",
    });
    expect(validatePath("/memories/a\u2029", { pathLimits: limits }).ok).toBe(false);
  });

  it("applies the table's order: earlier rules first, depth before characters", () => {
    const deepAndOdd = "/memories/a/b/c/\u200b";
    expect(validatePath(deepAndOdd, { pathLimits: limits })).toMatchObject({
      error: expect.stringContaining("more than 3 levels deep"),
    });
    expect(validatePath("/memories/.mem-x/b/c/d", { pathLimits: limits })).toMatchObject({
      error: expect.stringContaining("reserved name"),
    });
    expect(validatePath("/memories/a\u0000/b/c/d", { pathLimits: limits })).toMatchObject({
      error: expect.stringContaining("control character"),
    });
  });

  it("is checked by executeCommand before any storage call, on both rename paths, and through wrappers", async () => {
    const inner = new LimitedStore();
    const store = new ForwardingStore(inner);
    expect(store.pathLimits).toBe(limits);
    const deep = await executeCommand(store, {
      command: "create",
      path: "/memories/1/2/3/4",
      file_text: "x",
    });
    expect(deep).toMatchObject({
      isError: true,
      content: "Error: The path /memories/1/2/3/4 is not allowed: it is more than 3 levels deep",
    });
    await executeCommand(store, { command: "create", path: "/memories/a", file_text: "x" });
    const renamed = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/a",
      new_path: "/memories/x\u2028y",
    });
    expect(renamed.content).toBe(
      "Error: The path /memories/x\u2028y is not allowed: it contains a character this memory cannot store",
    );
    expect((await inner.read("/memories/a"))?.data).toEqual(new TextEncoder().encode("x"));
    expect(await inner.stat("/memories/1")).toBeNull();
  });

  it("changes nothing for stores that declare no limits", () => {
    const deep = `/memories/${Array(40).fill("d").join("/")}`;
    expect(validatePath(deep).ok).toBe(true);
  });
});

describe("a store's own largest file (MemoryStore.maxFileBytes)", () => {
  class SmallStore extends InMemoryStore {
    readonly maxFileBytes = 10;
  }

  it("refuses a write over it with SPEC's size error, before any storage call", async () => {
    const store = new ForwardingStore(new SmallStore());
    const big = await executeCommand(store, {
      command: "create",
      path: "/memories/a",
      file_text: "x".repeat(11),
    });
    expect(big.content).toBe(
      "Error: File /memories/a would be 11 bytes, which exceeds the limit of 10 bytes",
    );
    expect(await store.stat("/memories/a")).toBeNull();
    const ok = await executeCommand(store, {
      command: "create",
      path: "/memories/a",
      file_text: "x".repeat(10),
    });
    expect(ok.isError).toBe(false);
  });

  it("leaves a smaller application limit in force", async () => {
    const result = await executeCommand(
      new SmallStore(),
      { command: "create", path: "/memories/a", file_text: "x".repeat(6) },
      { maxFileBytes: 5 },
    );
    expect(result.content).toBe(
      "Error: File /memories/a would be 6 bytes, which exceeds the limit of 5 bytes",
    );
  });
});
