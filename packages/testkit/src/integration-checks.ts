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
  type Answer,
  CONCURRENT_SCRIPTS,
  expectedToolResults,
  lastToolResults,
  MEMORY_SCRIPT,
  NOTES_EDITS,
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
import { type Block, type ReceivedRequest, type ScriptedApi, startScriptedApi } from "./scripted-api.js";

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

/**
 * The engine the answers are taken from, so that no string the model sees is written here: a fresh
 * in-memory store, `executeCommand` and `toolResultContent` of `@mem/core`.
 */
export interface Engine<S> {
  fresh: () => S;
  execute: (
    store: S,
    input: unknown,
    options: EngineOptions,
  ) => Promise<{ content: string; isError: boolean; image?: unknown }>;
  content: (result: never) => string | Block[];
}

const text = (file: { data: Uint8Array } | null) => new TextDecoder().decode(file?.data);
const encode = (value: string) => new TextEncoder().encode(value);

/**
 * What the engine answers `script`'s calls with, one call after the other in the order the model wrote
 * them, on a fresh store that `seed` prepares.
 */
const engineAnswers = async <S>(
  engine: Engine<S>,
  seed: (store: S) => Promise<unknown>,
  script: readonly ScriptTurn[],
  options: EngineOptions = {},
): Promise<Answer[][]> => {
  const store = engine.fresh();
  await seed(store);
  const answers: Answer[][] = [];
  for (const turn of script) {
    const out: Answer[] = [];
    for (const input of turn.calls) {
      const result = await engine.execute(store, input, options);
      out.push({ content: engine.content(result as never), isError: result.isError });
    }
    answers.push(out);
  }
  return answers;
};

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

/** Every request after the first carries exactly the `tool_result` blocks of `answers`. */
export const expectToolResults = (
  received: readonly ReceivedRequest[],
  answers: readonly Answer[][],
): void => {
  for (const [i, results] of expectedToolResults(answers).entries()) {
    expect(lastToolResults(received[i + 1]?.body ?? {})).toEqual(results);
  }
};

/**
 * {@link MEMORY_SCRIPT} on `store`: every request declares `memory_20250818`, carries the exact results,
 * and the conversation ends with {@link SCRIPT_FINAL_TEXT} and the store holding {@link SCRIPT_NOTES}.
 */
export const checkMemoryScript = <S extends CheckedStore, R extends CheckedStore>(
  store: S,
  converse: Converse<S>,
  engine: Engine<R>,
): Promise<void> =>
  withScriptedApi(MEMORY_SCRIPT, async (api) => {
    const seed = (s: CheckedStore) => s.write(PNG_PATH, PNG_BYTES, { ifAbsent: true });
    await seed(store);
    expect(await converse(api, store, MEMORY_SCRIPT)).toBe(SCRIPT_FINAL_TEXT);

    expect(api.received).toHaveLength(MEMORY_SCRIPT.length + 1);
    for (const { body } of api.received) {
      expect(body["tools"]).toEqual([{ type: "memory_20250818", name: "memory" }]);
    }
    expectToolResults(api.received, await engineAnswers(engine, seed, MEMORY_SCRIPT));
    expect(text(await store.read("/memories/notes.md"))).toBe(SCRIPT_NOTES);
  });

const seedNotes = (store: CheckedStore) =>
  store.write("/memories/notes.md", encode(PARALLEL_START), { ifAbsent: true });

/** {@link PARALLEL_SCRIPT} on `store`: calls of one turn that depend on each other's order all succeed. */
export const checkCallsInOrder = <S extends CheckedStore, R extends CheckedStore>(
  store: S,
  converse: Converse<S>,
  engine: Engine<R>,
): Promise<void> =>
  withScriptedApi(PARALLEL_SCRIPT, async (api) => {
    await seedNotes(store);
    await converse(api, store, PARALLEL_SCRIPT);
    expectToolResults(api.received, await engineAnswers(engine, seedNotes, PARALLEL_SCRIPT));
    expect(text(await store.read("/memories/notes.md"))).toBe(PARALLEL_END);
    expect(text(await store.read("/memories/todo.md"))).toBe("- y\n");
  });

/**
 * The two {@link CONCURRENT_SCRIPTS} at once on `store`, their reads of the file made to race
 * ({@link raceReads}): at least one write is refused and retried, and both edits survive.
 */
export const checkConcurrentConversations = async <S extends CheckedStore, R extends CheckedStore>(
  store: S,
  converse: Converse<S>,
  engine: Engine<R>,
): Promise<void> => {
  const apis = await Promise.all(
    CONCURRENT_SCRIPTS.map((script) => startScriptedApi({ model: scriptedMemoryModel(script) })),
  );
  try {
    await seedNotes(store);
    const [racing, counts] = raceReads(store, "/memories/notes.md");
    await Promise.all(apis.map((api, i) => converse(api, racing, CONCURRENT_SCRIPTS[i] ?? [])));

    expect(counts.conflicts).toBeGreaterThanOrEqual(1);
    const received = apis.map((api) => lastToolResults(api.received[1]?.body ?? {}));
    // Each edit gets the answer it gets in one of the two orders: A then B, or B then A.
    const inOrder = async (first: Record<string, unknown>, second: Record<string, unknown>) =>
      (await engineAnswers(engine, seedNotes, [{ calls: [first, second] }]))[0] ?? [];
    const ab = await inOrder(NOTES_EDITS[0], NOTES_EDITS[1]);
    const ba = await inOrder(NOTES_EDITS[1], NOTES_EDITS[0]);
    for (const answer of [...ab, ...ba]) expect(answer.isError).toBe(false);
    const asReceived = (answers: Answer[]) => answers.map((answer) => expectedToolResults([[answer]])[0]);
    expect([asReceived(ab), asReceived([...ba].reverse())]).toContainEqual(received);
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
  engine: Engine<S>,
): Promise<void> => {
  const seed = (store: CheckedStore) => store.write("/memories/a.md", encode("first\n"), { ifAbsent: true });
  const script = [{ calls: OPTION_CALLS }];
  await withScriptedApi(script, async (api) => {
    const store = engine.fresh();
    await seed(store);
    await converse(api, store, script, ENGINE_OPTIONS);
    const expected = await engineAnswers(engine, seed, script, ENGINE_OPTIONS);
    // The options change every answer, so a tool that dropped them would send other results.
    const without = await engineAnswers(engine, seed, script);
    expect(without.flat().map((a) => a.content)).not.toEqual(expected.flat().map((a) => a.content));
    expectToolResults(api.received, expected);
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

/**
 * What {@link describeMemoryToolChecks} needs of an integration; as an {@link Engine}, the in-memory store
 * and core's functions the expected answers come from.
 */
export interface MemoryToolChecks<S> extends Engine<S> {
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
        checkMemoryScript(makeStore(), run, checks));
    }
    it(`${first}: calls in one turn run in the order the model wrote them: a create and its edit, two edits of one file`, () =>
      checkCallsInOrder(makeStore(), converse, checks));
    it(`${first}: two conversations editing one file at once: both edits survive, through a refused and retried write`, () =>
      checkConcurrentConversations(makeStore(), converse, checks));
  });
  describe(`${name} options`, () => {
    it("createOverwrites, the guard and the quota reach the engine", () =>
      checkOptionsReachEngine(converse, checks));
  });
};
