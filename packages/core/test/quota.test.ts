import { describe, expect, it } from "vitest";
import { memoryTool } from "../src/anthropic/index.js";
import {
  type ExecuteOptions,
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  type MemoryStore,
  QuotaExceededError,
  usageOf,
} from "../src/index.js";
import { exceedsQuota, usageFromListings } from "../src/quota.js";

const create = (path: string, text: string) => ({ command: "create", path, file_text: text });

/** A store without `usage()`, as a user's store may be: core falls back to its listings. */
class PlainStore extends ForwardingStore {
  constructor() {
    super(new InMemoryStore());
  }
}
Object.defineProperty(PlainStore.prototype, "usage", { value: undefined });

describe("quota options", () => {
  const bad: ExecuteOptions[] = [
    { maxFiles: 0 },
    { maxFiles: -1 },
    { maxFiles: 1.5 },
    { maxFiles: Number.NaN },
    { maxFiles: Number.POSITIVE_INFINITY },
    { maxTotalBytes: 0 },
    { maxTotalBytes: -10 },
    { maxTotalBytes: 0.5 },
    { maxTotalBytes: "100" as unknown as number },
  ];

  it("rejects an invalid maxFiles or maxTotalBytes from executeCommand with a TypeError naming it, writing nothing", async () => {
    const store = new InMemoryStore();
    for (const options of bad) {
      const name = Object.keys(options)[0]!;
      await expect(executeCommand(store, create("/memories/a", "x"), options)).rejects.toThrow(
        new TypeError(`${name} must be a positive integer (at least 1), or left unset for no limit`),
      );
    }
    expect(await store.usage()).toEqual({ files: 0, bytes: 0 });
  });

  it("refuses an invalid quota when the tool is made, not when the model calls it", () => {
    for (const options of bad) expect(() => memoryTool(new InMemoryStore(), options)).toThrow(TypeError);
    expect(() => memoryTool(new InMemoryStore(), { maxFiles: 1, maxTotalBytes: 1 })).not.toThrow();
  });

  it("passes the model's refusal through the tool runner's tool", async () => {
    const store = new InMemoryStore();
    const tool = memoryTool(store, { maxFiles: 1 });
    await tool.run(create("/memories/a", "x"));
    await expect(tool.run(create("/memories/b", "x"))).rejects.toThrow(
      "Error: Cannot create /memories/b: memory already holds 1 files, the limit is 1. Delete or merge files first.",
    );
  });
});

describe("usage fallback for stores without usage()", () => {
  it("counts listed files at every depth, and leaves hidden ones out", async () => {
    const store: MemoryStore = new PlainStore();
    expect(store.usage).toBeUndefined();
    for (const [path, text] of [
      ["/memories/a", "12"],
      ["/memories/d/e/f/g", "123"],
      ["/memories/d/h", "1"],
      ["/memories/.hidden", "12345"],
    ] as const) {
      await executeCommand(store, create(path, text));
    }
    expect(await usageFromListings(store)).toEqual({ files: 3, bytes: 6 });
    expect(await usageOf(store)).toEqual({ files: 3, bytes: 6 });
    expect(await executeCommand(store, create("/memories/z", "x"), { maxFiles: 3 })).toEqual({
      content:
        "Error: Cannot create /memories/z: memory already holds 3 files, the limit is 3. Delete or merge files first.",
      isError: true,
    });
  });

  it("ForwardingStore forwards usage, sweep and check, with fallbacks", async () => {
    let now = 0;
    const inner = new InMemoryStore({ expireAfterSeconds: 1, clock: () => now });
    const wrapped = new ForwardingStore(inner);
    await executeCommand(wrapped, create("/memories/.h", "123"));
    expect(await wrapped.usage()).toEqual({ files: 1, bytes: 3 });
    now = 1001;
    expect(await wrapped.sweep()).toEqual({ paths: ["/memories/.h"], bytes: 3 });
    await expect(wrapped.check()).resolves.toBeUndefined();
    expect("scope" in wrapped).toBe(false);
    expect(await new PlainStore().sweep()).toEqual({ paths: [], bytes: 0 });
  });
});

describe("quotas checked by the store (writeWithinQuota)", () => {
  it("exceedsQuota: creates count a file and its bytes, edits only their growth", () => {
    const usage = { files: 5, bytes: 50 };
    expect(exceedsQuota({ maxFiles: 5 }, usage, 1, null)).toBe(true);
    expect(exceedsQuota({ maxFiles: 6 }, usage, 1, null)).toBe(false);
    expect(exceedsQuota({ maxFiles: 5 }, usage, 100, 1)).toBe(false);
    expect(exceedsQuota({ maxTotalBytes: 60 }, usage, 10, null)).toBe(false);
    expect(exceedsQuota({ maxTotalBytes: 60 }, usage, 11, null)).toBe(true);
    expect(exceedsQuota({ maxTotalBytes: 60 }, usage, 20, 10)).toBe(false);
    expect(exceedsQuota({ maxTotalBytes: 60 }, usage, 21, 10)).toBe(true);
    // Shrinking (or equal) edits pass even above the limit.
    expect(exceedsQuota({ maxTotalBytes: 10 }, usage, 10, 10)).toBe(false);
  });

  it("sends writes under a quota through writeWithinQuota, reads no usage first, and words its refusal", async () => {
    const calls: string[] = [];
    class Recording extends InMemoryStore {
      override usage() {
        calls.push("usage");
        return super.usage();
      }
      override write(...args: Parameters<InMemoryStore["write"]>) {
        calls.push("write");
        return super.write(...args);
      }
      override writeWithinQuota(...args: Parameters<InMemoryStore["writeWithinQuota"]>) {
        calls.push(`writeWithinQuota ${JSON.stringify(args[3])}`);
        return super.writeWithinQuota(...args);
      }
    }
    const store = new Recording();
    const quota = { maxFiles: 1, maxTotalBytes: 6 };
    expect((await executeCommand(store, create("/memories/a.md", "abc"), quota)).isError).toBe(false);
    expect(await executeCommand(store, create("/memories/b.md", "b"), quota)).toEqual({
      content:
        "Error: Cannot create /memories/b.md: memory already holds 1 files, the limit is 1. Delete or merge files first.",
      isError: true,
    });
    expect(
      await executeCommand(
        store,
        { command: "str_replace", path: "/memories/a.md", old_str: "abc", new_str: "abcdefg" },
        quota,
      ),
    ).toEqual({
      content:
        "Error: Cannot write /memories/a.md: memory would hold 7 bytes, over the limit of 6 bytes. Delete or shorten files first.",
      isError: true,
    });
    // The command's own error comes first.
    expect(await executeCommand(store, create("/memories/a.md", "x"), quota)).toEqual({
      content: "Error: File /memories/a.md already exists",
      isError: true,
    });
    expect(calls).toEqual(Array(4).fill('writeWithinQuota {"maxFiles":1,"maxTotalBytes":6}'));
    expect(new QuotaExceededError("/memories/x", { files: 1, bytes: 2 }).code).toBe("QUOTA_EXCEEDED");
  });
});

describe("InMemoryStore tenants and expiry", () => {
  it("keeps one store per tenant, nested scopes apart, and checks ids", () => {
    const root = new InMemoryStore();
    expect(root.scope("a")).toBe(root.scope("a"));
    expect(root.scope("a").scope("b")).not.toBe(root.scope("b"));
    expect(() => root.scope("a/b")).toThrow(TypeError);
  });

  it("refuses invalid expiry options with a TypeError naming them", () => {
    for (const expireAfterSeconds of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new InMemoryStore({ expireAfterSeconds })).toThrow(/^expireAfterSeconds must be/);
    }
    expect(() => new InMemoryStore({ expireAfterSeconds: 1, clock: 5 as unknown as () => number })).toThrow(
      /^clock must be/,
    );
  });

  it("scopes inherit the parent's expiry", async () => {
    let now = 0;
    const root = new InMemoryStore({ expireAfterSeconds: 10, clock: () => now });
    const scoped = root.scope("t");
    await executeCommand(scoped, create("/memories/a", "x"));
    now = 10_001;
    expect(await scoped.stat("/memories/a")).toBeNull();
  });
});
