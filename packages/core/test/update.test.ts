import { describe, expect, it } from "vitest";
import {
  AlreadyExistsError,
  applyInTurn,
  type ChangeContext,
  ConflictError,
  DEFAULT_UPDATE_ATTEMPTS,
  type FileData,
  ForwardingStore,
  InMemoryStore,
  isStoreError,
  type MemoryStore,
  StoreFailureError,
  TooManyConflictsError,
  updateInTurn,
  updateWithRetry,
  type WriteCondition,
} from "../src/index.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const PATH = "/memories/count";

/** A store over an `InMemoryStore` whose writes go through `write`. */
const over = (
  store: MemoryStore,
  write: (
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    context?: unknown,
  ) => Promise<{ version: string }>,
  read: (path: string) => Promise<FileData | null> = (path) => store.read(path),
): MemoryStore =>
  new (class extends ForwardingStore {
    override read(path: string) {
      return read(path);
    }
    override write(path: string, data: Uint8Array, condition: WriteCondition, context?: ChangeContext) {
      return write(path, data, condition, context);
    }
  })(store);

/** An `InMemoryStore` whose next `conflicts` writes lose their race, counting reads and writes. */
const contended = (conflicts: number, lost: (path: string, condition: WriteCondition) => unknown) => {
  const store = new InMemoryStore();
  const counts = { reads: 0, writes: 0, left: conflicts };
  const wrapped = over(
    store,
    async (path, data, condition) => {
      counts.writes++;
      if (counts.left-- > 0) throw lost(path, condition);
      return store.write(path, data, condition);
    },
    (path) => {
      counts.reads++;
      return store.read(path);
    },
  );
  return { store, wrapped, counts };
};

const increment = (current: FileData | null): Uint8Array =>
  encoder.encode(String((current ? Number(decoder.decode(current.data)) : 0) + 1));

const text = async (store: MemoryStore): Promise<string | undefined> => {
  const file = await store.read(PATH);
  return file ? decoder.decode(file.data) : undefined;
};

describe("updateWithRetry", () => {
  it("writes once when nobody races, ifAbsent on an absent file and ifVersion on an existing one", async () => {
    const { wrapped, counts } = contended(0, () => null);
    expect(await updateWithRetry(wrapped, PATH, increment)).toMatchObject({ written: true, attempts: 1 });
    const second = await updateWithRetry(wrapped, PATH, increment);
    expect(second).toMatchObject({ written: true, attempts: 1 });
    expect(second.written && second.version).toBe((await wrapped.read(PATH))?.version);
    expect(await text(wrapped)).toBe("2");
    expect(counts).toMatchObject({ reads: 4, writes: 2 });
  });

  it("retries each lost race on a fresh read and uses one attempt per conflict", async () => {
    const { store, wrapped, counts } = contended(4, (path) => new ConflictError(path));
    await store.write(PATH, encoder.encode("10"), { ifAbsent: true });
    const seen: number[] = [];
    const result = await updateWithRetry(wrapped, PATH, (current, attempt) => {
      seen.push(attempt);
      return increment(current);
    });
    expect(result).toMatchObject({ written: true, attempts: 5 });
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(counts).toMatchObject({ reads: 5, writes: 5 });
    expect(await text(store)).toBe("11");
  });

  it("retries AlreadyExistsError after an absent read as a lost race", async () => {
    const { store, wrapped, counts } = contended(2, (path) => new AlreadyExistsError(path));
    expect(await updateWithRetry(wrapped, PATH, increment, { backoff: false })).toMatchObject({
      written: true,
      attempts: 3,
    });
    expect(counts.writes).toBe(3);
    expect(await text(store)).toBe("1");
  });

  it("stops at the cap with TooManyConflictsError and writes nothing", async () => {
    const { store, wrapped, counts } = contended(1000, (path) => new ConflictError(path));
    await store.write(PATH, encoder.encode("7"), { ifAbsent: true });
    const error = await updateWithRetry(wrapped, PATH, increment, { attempts: 3 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyConflictsError);
    expect(error).toBeInstanceOf(StoreFailureError);
    expect(isStoreError(error, "STORE_FAILURE")).toBe(true);
    expect(error).toMatchObject({
      name: "TooManyConflictsError",
      code: "STORE_FAILURE",
      path: PATH,
      attempts: 3,
      reason: `too many concurrent updates of ${PATH}`,
      mayBeApplied: false,
    });
    expect(counts).toMatchObject({ reads: 3, writes: 3 });
    expect(await text(store)).toBe("7");
  });

  it(`tries ${DEFAULT_UPDATE_ATTEMPTS} times by default`, async () => {
    const { store, wrapped, counts } = contended(1000, (path) => new ConflictError(path));
    await store.write(PATH, encoder.encode("1"), { ifAbsent: true });
    await expect(updateWithRetry(wrapped, PATH, increment, { backoff: false })).rejects.toMatchObject({
      attempts: DEFAULT_UPDATE_ATTEMPTS,
    });
    expect(counts.writes).toBe(DEFAULT_UPDATE_ATTEMPTS);
  });

  it("stops without writing when change returns null", async () => {
    const { wrapped, counts } = contended(0, () => null);
    expect(await updateWithRetry(wrapped, PATH, () => null)).toEqual({ written: false, attempts: 1 });
    expect(counts).toMatchObject({ reads: 1, writes: 0 });
    expect(await wrapped.stat(PATH)).toBeNull();
  });

  it("throws other errors at once, and the AlreadyExistsError of a directory without retrying", async () => {
    const failing = contended(1, () => new StoreFailureError("disk full"));
    await expect(updateWithRetry(failing.wrapped, PATH, increment)).rejects.toMatchObject({
      reason: "disk full",
    });
    expect(failing.counts.writes).toBe(1);
    const { store, counts } = contended(0, () => null);
    await store.write("/memories/dir/f", encoder.encode("x"), { ifAbsent: true });
    let writes = 0;
    const counted = over(store, (path, data, condition) => {
      writes++;
      return store.write(path, data, condition);
    });
    await expect(updateWithRetry(counted, "/memories/dir", increment)).rejects.toMatchObject({
      code: "ALREADY_EXISTS",
    });
    expect(writes).toBe(1);
    expect(counts.writes).toBe(0);
  });

  it("throws what change throws, without writing", async () => {
    const { wrapped, counts } = contended(0, () => null);
    await expect(
      updateWithRetry(wrapped, PATH, () => {
        throw new RangeError("bad content");
      }),
    ).rejects.toThrow("bad content");
    expect(counts.writes).toBe(0);
  });

  it("stops when aborted between attempts, with the signal's reason", async () => {
    const { wrapped, counts } = contended(1000, (path) => new AlreadyExistsError(path));
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const result = updateWithRetry(
      wrapped,
      PATH,
      (current, attempt) => {
        if (attempt === 2) controller.abort(reason);
        return increment(current);
      },
      { attempts: 100, signal: controller.signal },
    );
    await expect(result).rejects.toBe(reason);
    expect(counts).toMatchObject({ reads: 3, writes: 3 });
  });

  it("reads nothing when the signal is already aborted", async () => {
    const { wrapped, counts } = contended(0, () => null);
    const signal = AbortSignal.abort(new Error("too late"));
    await expect(updateWithRetry(wrapped, PATH, increment, { signal })).rejects.toThrow("too late");
    expect(counts).toMatchObject({ reads: 0, writes: 0 });
  });

  it("writes through options.write and passes the context to store.write", async () => {
    const store = new InMemoryStore();
    const conditions: WriteCondition[] = [];
    await updateWithRetry(store, PATH, increment, {
      write: (path, data, condition) => {
        conditions.push(condition);
        return store.write(path, data, condition);
      },
    });
    expect(conditions).toEqual([{ ifAbsent: true }]);
    const contexts: unknown[] = [];
    const watched = over(store, (path, data, condition, context) => {
      contexts.push(context);
      return store.write(path, data, condition);
    });
    await updateWithRetry(watched, PATH, increment, { context: { command: "create", actor: "tests" } });
    expect(contexts).toEqual([{ command: "create", actor: "tests" }]);
  });

  it("refuses attempts that are not a positive integer or Infinity with a TypeError naming the option", async () => {
    const store = new InMemoryStore();
    for (const attempts of [0, -1, 1.5, Number.NaN, "3" as unknown as number]) {
      await expect(updateWithRetry(store, PATH, increment, { attempts })).rejects.toThrow(
        new TypeError('updateWithRetry: option "attempts" must be a positive integer or Infinity'),
      );
    }
    expect(
      await updateWithRetry(store, PATH, increment, { attempts: Number.POSITIVE_INFINITY }),
    ).toMatchObject({
      written: true,
    });
  });

  it("recognises lost races whose errors come from another copy of core", async () => {
    // The same name and code from another module instance, and a plain object of that shape.
    class ConflictErrorCopy extends Error {
      readonly code = "CONFLICT";
      constructor(readonly path: string) {
        super(`${path} changed concurrently`);
        this.name = "ConflictError";
      }
    }
    const copy = contended(2, (path) => new ConflictErrorCopy(path));
    await copy.store.write(PATH, encoder.encode("1"), { ifAbsent: true });
    expect(await updateWithRetry(copy.wrapped, PATH, increment, { backoff: false })).toMatchObject({
      attempts: 3,
    });
    const plain = contended(2, (path) => ({ name: "AlreadyExistsError", code: "ALREADY_EXISTS", path }));
    expect(await updateWithRetry(plain.wrapped, PATH, increment, { backoff: false })).toMatchObject({
      attempts: 3,
    });
    expect(await text(plain.store)).toBe("1");
  });
});

describe("isStoreError", () => {
  it("matches by code and name, with or without a code asked for", () => {
    expect(isStoreError(new ConflictError("/memories/a"), "CONFLICT")).toBe(true);
    expect(isStoreError(new ConflictError("/memories/a"), "NOT_FOUND")).toBe(false);
    expect(isStoreError(new ConflictError("/memories/a"))).toBe(true);
    expect(isStoreError({ name: "NotFoundError", code: "NOT_FOUND" })).toBe(true);
    expect(isStoreError({ name: "NotFoundError", code: "ENOENT" })).toBe(false);
    expect(isStoreError({ name: "whatever", code: "NOT_FOUND" }, "NOT_FOUND")).toBe(false);
    expect(isStoreError(Object.assign(new Error("x"), { code: "ECONNRESET" }))).toBe(false);
    expect(isStoreError(null)).toBe(false);
    expect(isStoreError("CONFLICT", "CONFLICT")).toBe(false);
  });
});

describe("applyInTurn", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const decode = (bytes: Uint8Array | null) => (bytes ? new TextDecoder().decode(bytes) : null);
  const append = (line: string) => (current: Uint8Array) => encode(`${decode(current)}${line}`);

  it("applies each change to what the one before left, for one write", () => {
    const { next, thrown } = applyInTurn(encode(">"), [append("a"), () => null, append("b")]);
    expect(decode(next)).toBe(">ab");
    expect(thrown).toEqual([undefined, undefined, undefined]);
  });

  it("leaves out a change that throws, keeps its error, and applies the others", () => {
    const error = new Error("bad change");
    const { next, thrown } = applyInTurn(encode(">"), [
      append("a"),
      () => {
        throw error;
      },
      append("c"),
    ]);
    expect(decode(next)).toBe(">ac");
    expect(thrown).toEqual([undefined, { error }, undefined]);
  });

  it("asks for no write when no change asked for one", () => {
    expect(applyInTurn(encode(">"), [() => null, () => null]).next).toBeNull();
    expect(applyInTurn(encode(">"), []).next).toBeNull();
  });
});

describe("updateInTurn", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const append = (line: string) => (current: Uint8Array) => encode(`${decode(current)}${line}`);
  /** One file in memory whose reads and writes are counted; `raceOnce` makes the first write lose. */
  const file = (initial: string | null, raceOnce = false) => {
    const state: { data: Uint8Array | null; takes: number; applies: number } = {
      data: initial === null ? null : encode(initial),
      takes: 0,
      applies: 0,
    };
    let raced = !raceOnce;
    const take = async (apply: (current: Uint8Array) => Uint8Array | null) => {
      state.takes++;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (!state.data) return false;
        state.applies++;
        const next = apply(state.data);
        if (!raced) {
          raced = true;
          state.data = encode(`${decode(state.data)}[other]`);
          continue;
        }
        if (next) state.data = next;
        return true;
      }
    };
    return { state, take };
  };

  it("runs the edits that arrive during a turn together, in arrival order", async () => {
    const owner = {};
    const { state, take } = file(">");
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((line) => updateInTurn(owner, "/memories/f", append(line), take)),
    );
    expect(results).toEqual([true, true, true, true]);
    expect(decode(state.data!)).toBe(">abcd");
    // The first goes alone; the three that arrived meanwhile share the next turn.
    expect(state.takes).toBe(2);
  });

  it("keeps owners and keys apart", async () => {
    const a = file("");
    const one = {};
    const two = {};
    await Promise.all([
      updateInTurn(one, "k", append("1"), a.take),
      updateInTurn(one, "k", append("2"), a.take),
      updateInTurn(two, "k", append("3"), a.take),
      updateInTurn(two, "k", append("4"), a.take),
      updateInTurn(one, "other", append("5"), a.take),
    ]);
    // Each owner's first edit of "k" goes alone and its second follows; "other" takes a turn of its own.
    expect(a.state.takes).toBe(5);
    const b = file("");
    await Promise.all(["1", "2", "3", "4"].map((line) => updateInTurn(one, "k", append(line), b.take)));
    expect(b.state.takes).toBe(2);
  });

  it("gives a thrown change its own error, after the turn's last application", async () => {
    const owner = {};
    const { state, take } = file(">", true);
    let calls = 0;
    const error = new Error("bad change");
    const first = updateInTurn(owner, "f", append("a"), take);
    const results = await Promise.allSettled([
      first,
      updateInTurn(owner, "f", append("b"), take),
      updateInTurn(
        owner,
        "f",
        () => {
          calls++;
          throw error;
        },
        take,
      ),
      updateInTurn(owner, "f", append("c"), take),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(results[2]).toEqual({ status: "rejected", reason: error });
    // The first turn lost a race and applied again; the second turn ran b, the throwing change and c.
    expect(decode(state.data!)).toBe(">[other]abc");
    expect(calls).toBe(1);
  });

  it("fails every edit of a turn that failed, and answers false for a missing file", async () => {
    const failing = async () => {
      throw new Error("connection lost");
    };
    const owner = {};
    const settled = await Promise.allSettled([
      updateInTurn(owner, "f", append("a"), failing),
      updateInTurn(owner, "f", append("b"), failing),
    ]);
    expect(
      settled.every((r) => r.status === "rejected" && (r.reason as Error).message === "connection lost"),
    ).toBe(true);
    const { take } = file(null);
    expect(await updateInTurn({}, "f", append("a"), take)).toBe(false);
  });
});
