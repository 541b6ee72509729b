/**
 * The checks every framework integration of the memory tool passes: its test supplies how the framework
 * runs a conversation (a {@link Converse}), these run the scripts of `memory-script.ts` through it against
 * the scripted Messages API and assert on what the server received and on the store.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CONCURRENT_SCRIPTS,
  EDITED_PREFIX,
  expectedToolResults,
  lastToolResults,
  MEMORY_SCRIPT,
  PARALLEL_END,
  PARALLEL_SCRIPT,
  PARALLEL_START,
  PNG_BYTES,
  PNG_PATH,
  raceReads,
  SCRIPT_FINAL_TEXT,
  SCRIPT_NOTES,
  type ScriptTurn,
  scriptedMemoryModel,
} from "./memory-script.js";
import { type RedisServer, startRedis } from "./redis.js";
import { type ReceivedRequest, type ScriptedApi, startScriptedApi } from "./scripted-api.js";

/** What the checks need of a store. */
export interface CheckedStore {
  read(path: string): Promise<{ data: Uint8Array } | null>;
  write(path: string, data: Uint8Array, condition: { ifAbsent: true }): Promise<unknown>;
}

/** The options {@link checkOptionsReachEngine} gives the tool; each one changes the engine's answers. */
export const ENGINE_OPTIONS = { createOverwrites: true, sensitive: false, maxFiles: 2 } as const;
export type EngineOptions = { -readonly [K in keyof typeof ENGINE_OPTIONS]?: (typeof ENGINE_OPTIONS)[K] };

/**
 * Runs a conversation through the framework against `api`, with the memory tool on `store` (given
 * `options`, when there are any) answering every call until the model stops; returns the model's final
 * text. `script` is what the scripted model plays, for frameworks that bound the number of steps.
 */
export type Converse<S> = (
  api: ScriptedApi,
  store: S,
  script: readonly ScriptTurn[],
  options?: EngineOptions,
) => Promise<string>;

const text = (file: { data: Uint8Array } | null) => new TextDecoder().decode(file?.data);

/** Starts a scripted API playing `script`, runs `body` against it and closes it. */
export const withScriptedApi = async <T>(
  script: readonly ScriptTurn[],
  body: (api: ScriptedApi) => Promise<T>,
): Promise<T> => {
  const api = await startScriptedApi({ model: scriptedMemoryModel(script) });
  try {
    return await body(api);
  } finally {
    await api.close();
  }
};

/** Every request after the first carries exactly the `tool_result` blocks {@link expectedToolResults} gives. */
export const expectToolResults = (
  received: readonly ReceivedRequest[],
  script: readonly ScriptTurn[],
): void => {
  for (const [i, results] of expectedToolResults(script).entries()) {
    expect(lastToolResults(received[i + 1]?.body ?? {})).toEqual(results);
  }
};

/**
 * {@link MEMORY_SCRIPT} on `store`: every request declares `memory_20250818`, carries the exact results,
 * and the conversation ends with {@link SCRIPT_FINAL_TEXT} and the store holding {@link SCRIPT_NOTES}.
 */
export const checkMemoryScript = <S extends CheckedStore>(store: S, converse: Converse<S>): Promise<void> =>
  withScriptedApi(MEMORY_SCRIPT, async (api) => {
    await store.write(PNG_PATH, PNG_BYTES, { ifAbsent: true });
    expect(await converse(api, store, MEMORY_SCRIPT)).toBe(SCRIPT_FINAL_TEXT);

    expect(api.received).toHaveLength(MEMORY_SCRIPT.length + 1);
    for (const { body } of api.received) {
      expect(body["tools"]).toEqual([{ type: "memory_20250818", name: "memory" }]);
    }
    expectToolResults(api.received, MEMORY_SCRIPT);
    expect(text(await store.read("/memories/notes.md"))).toBe(SCRIPT_NOTES);
  });

/** {@link PARALLEL_SCRIPT} on `store`: calls of one turn that depend on each other's order all succeed. */
export const checkCallsInOrder = <S extends CheckedStore>(store: S, converse: Converse<S>): Promise<void> =>
  withScriptedApi(PARALLEL_SCRIPT, async (api) => {
    await store.write("/memories/notes.md", new TextEncoder().encode(PARALLEL_START), { ifAbsent: true });
    await converse(api, store, PARALLEL_SCRIPT);
    expectToolResults(api.received, PARALLEL_SCRIPT);
    expect(text(await store.read("/memories/notes.md"))).toBe(PARALLEL_END);
    expect(text(await store.read("/memories/todo.md"))).toBe("- y\n");
  });

/**
 * The two {@link CONCURRENT_SCRIPTS} at once on `store`, their reads of the file made to race
 * ({@link raceReads}): at least one write is refused and retried, and both edits survive.
 */
export const checkConcurrentConversations = async <S extends CheckedStore>(
  store: S,
  converse: Converse<S>,
): Promise<void> => {
  const apis = await Promise.all(
    CONCURRENT_SCRIPTS.map((script) => startScriptedApi({ model: scriptedMemoryModel(script) })),
  );
  try {
    await store.write("/memories/notes.md", new TextEncoder().encode(PARALLEL_START), { ifAbsent: true });
    const [racing, counts] = raceReads(store, "/memories/notes.md");
    await Promise.all(apis.map((api, i) => converse(api, racing, CONCURRENT_SCRIPTS[i] ?? [])));

    expect(counts.conflicts).toBeGreaterThanOrEqual(1);
    for (const api of apis) {
      const [block, ...rest] = lastToolResults(api.received[1]?.body ?? {});
      expect(rest).toEqual([]);
      expect(block).not.toHaveProperty("is_error");
      expect(String((block as { content: unknown }).content).startsWith(EDITED_PREFIX)).toBe(true);
    }
    expect(text(await store.read("/memories/notes.md"))).toBe(PARALLEL_END);
  } finally {
    await Promise.all(apis.map((api) => api.close()));
  }
};

const OPTION_CALLS = [
  { command: "create", path: "/memories/a.md", file_text: "second\n" },
  { command: "create", path: "/memories/b.md", file_text: "key AKIAIOSFODNN7EXAMPLE\n" },
  { command: "create", path: "/memories/c.md", file_text: "third\n" },
];

/**
 * {@link ENGINE_OPTIONS} given to the tool reach the engine: three creates in one turn, on a fresh store
 * holding `/memories/a.md`, get the answers `execute` (the engine) gives for them with those options, and
 * those differ from its answers without them.
 */
export const checkOptionsReachEngine = async <S extends CheckedStore>(
  converse: Converse<S>,
  fresh: () => S,
  execute: (
    store: S,
    input: unknown,
    options: EngineOptions,
  ) => Promise<{ content: string; isError: boolean }>,
): Promise<void> => {
  const seeded = async () => {
    const store = fresh();
    await store.write("/memories/a.md", new TextEncoder().encode("first\n"), { ifAbsent: true });
    return store;
  };
  /** What the engine itself answers for the calls, one after the other, with `options`. */
  const engine = async (options: EngineOptions) => {
    const store = await seeded();
    const out = [];
    for (const input of OPTION_CALLS) out.push(await execute(store, input, options));
    return out;
  };
  const script = [{ calls: OPTION_CALLS, results: [] }];
  await withScriptedApi(script, async (api) => {
    await converse(api, await seeded(), script, ENGINE_OPTIONS);
    const expected = await engine(ENGINE_OPTIONS);
    // The options change every answer, so a tool that dropped them would send other results.
    expect((await engine({})).map((r) => r.content)).not.toEqual(expected.map((r) => r.content));
    expect(lastToolResults(api.received[1]?.body ?? {})).toEqual(
      expected.map((r, i) => ({
        type: "tool_result",
        tool_use_id: `toolu_demo_00${i + 1}`,
        content: r.content,
        ...(r.isError && { is_error: true }),
      })),
    );
  });
};

/**
 * The stores the checks run on, as `[name, make]` pairs for `describe.each`: a `Directory` store (given
 * `{ root }`) in a temporary directory and a `Redis` store (given `{ url, prefix }`, keys under
 * `{name}-{n}`) on a redis-server. Registers the `beforeAll` that starts the server and the `afterAll` that
 * closes the Redis stores, stops it and removes the directory.
 */
export const integrationStores = <S>(
  name: string,
  Directory: new (options: { root: string }) => S,
  Redis: new (options: { url: string; prefix: string }) => S & { close(): Promise<void> },
): [string, () => S][] => {
  let redis: RedisServer | undefined;
  let dir = "";
  const closing: { close(): Promise<void> }[] = [];
  let made = 0;
  beforeAll(async () => {
    redis = await startRedis();
    dir = await mkdtemp(join(tmpdir(), `mem-${name}-`));
  });
  afterAll(async () => {
    await Promise.all(closing.map((s) => s.close()));
    await redis?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return [
    ["fs", () => new Directory({ root: join(dir, `store-${++made}`) })],
    [
      "redis",
      () => {
        if (!redis) throw new Error("the Redis server is not running: make stores inside tests");
        const store = new Redis({ url: redis.url, prefix: `${name}-${++made}` });
        closing.push(store);
        return store;
      },
    ],
  ];
};

/** What {@link describeMemoryToolChecks} needs of an integration. */
export interface MemoryToolChecks<S> {
  /** The store classes to run on, as {@link integrationStores} takes them. */
  Directory: new (options: {
    root: string;
  }) => S;
  Redis: new (options: { url: string; prefix: string }) => S & { close(): Promise<void> };
  /**
   * The framework's ways of running a conversation by name (`generateText`, `streamText`): each runs
   * {@link checkMemoryScript}; the first also the other checks.
   */
  modes: Record<string, Converse<S>>;
  /** A fresh in-memory store and the engine, for {@link checkOptionsReachEngine}. */
  fresh: () => S;
  execute: (
    store: S,
    input: unknown,
    options: EngineOptions,
  ) => Promise<{ content: string; isError: boolean }>;
}

/** Declares the tests every integration passes: each check of this module, on an fs and a Redis store. */
export const describeMemoryToolChecks = <S extends CheckedStore>(
  name: string,
  checks: MemoryToolChecks<S>,
) => {
  const [first, converse] = Object.entries(checks.modes)[0] ?? [];
  if (!first || !converse) throw new TypeError("modes must name at least one way of running a conversation");
  const kinds = integrationStores(name, checks.Directory, checks.Redis);
  describe.each(kinds)(`${name} on a %s store`, (_kind, makeStore) => {
    for (const [mode, run] of Object.entries(checks.modes)) {
      it(`${mode}: declares memory_20250818 and sends the exact results`, () =>
        checkMemoryScript(makeStore(), run));
    }
    it(`${first}: calls in one turn run in the order the model wrote them: a create and its edit, two edits of one file`, () =>
      checkCallsInOrder(makeStore(), converse));
    it(`${first}: two conversations editing one file at once: both edits survive, through a refused and retried write`, () =>
      checkConcurrentConversations(makeStore(), converse));
  });
  describe(`${name} options`, () => {
    it("createOverwrites, the guard and the quota reach the engine", () =>
      checkOptionsReachEngine(converse, checks.fresh, checks.execute));
  });
};
