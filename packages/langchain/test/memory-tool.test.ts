/**
 * The real ChatAnthropic against the scripted Messages API over HTTP, with the executor answering its
 * tool calls: what the server receives is what Claude would, for an fs store and a Redis store.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChatAnthropic } from "@langchain/anthropic";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { type ExecuteOptions, executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { RedisStore } from "@mem/redis";
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
  type RedisServer,
  raceReads,
  SCRIPT_FINAL_TEXT,
  SCRIPT_NOTES,
  type ScriptedApi,
  scriptedMemoryModel,
  startRedis,
  startScriptedApi,
} from "@mem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MemoryToolOptions, markToolErrors, memoryTool, memoryToolNode } from "../src/index.js";

const text = (data: Uint8Array | undefined) => new TextDecoder().decode(data);

let redis: RedisServer;
let dir: string;
const stores: RedisStore[] = [];
let made = 0;

beforeAll(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), "mem-langchain-"));
});
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

const kinds: [string, () => MemoryStore][] = [
  ["fs", () => new FsStore({ root: join(dir, `store-${++made}`) })],
  [
    "redis",
    () => {
      const store = new RedisStore({ url: redis.url, prefix: `langchain-${++made}` });
      stores.push(store);
      return store;
    },
  ],
];

/** An agent loop: ChatAnthropic with the memory tool bound, the executor answering every call. */
const run = async (
  api: ScriptedApi,
  store: MemoryStore,
  streaming: boolean,
  mark = markToolErrors,
  options: MemoryToolOptions = {},
) => {
  const model = new ChatAnthropic({
    model: "claude-test",
    apiKey: "offline",
    anthropicApiUrl: api.baseURL,
    maxRetries: 0,
    maxTokens: 1024,
    streaming,
  }).bindTools([memoryTool(store, options)]);
  const node = memoryToolNode(store, options);
  const messages: BaseMessage[] = [new HumanMessage("Tidy up my memory.")];
  for (let turn = 0; turn < 10; turn += 1) {
    const reply = await model.invoke(mark(messages));
    messages.push(reply);
    if (!reply.tool_calls?.length) return reply.text;
    messages.push(...((await node.invoke(messages)) as BaseMessage[]));
  }
  throw new Error("the conversation did not end");
};

describe.each(kinds)("memoryTool and memoryToolNode on a %s store", (_kind, makeStore) => {
  for (const streaming of [false, true]) {
    it(`${streaming ? "streaming" : "invoke"}: declares memory_20250818 and sends the exact results`, async () => {
      const api = await startScriptedApi({ model: scriptedMemoryModel(MEMORY_SCRIPT) });
      try {
        const store = makeStore();
        await store.write(PNG_PATH, PNG_BYTES, { ifAbsent: true });
        expect(await run(api, store, streaming)).toBe(SCRIPT_FINAL_TEXT);

        expect(api.received).toHaveLength(MEMORY_SCRIPT.length + 1);
        for (const { body } of api.received) {
          expect(body["tools"]).toEqual([{ type: "memory_20250818", name: "memory" }]);
        }
        const expected = expectedToolResults(MEMORY_SCRIPT);
        for (const [i, results] of expected.entries()) {
          expect(lastToolResults(api.received[i + 1]?.body ?? {})).toEqual(results);
        }
        expect(text((await store.read("/memories/notes.md"))?.data)).toBe(SCRIPT_NOTES);
      } finally {
        await api.close();
      }
    });
  }

  it("calls in one turn run in the order the model wrote them: a create and its edit, two edits of one file", async () => {
    const api = await startScriptedApi({ model: scriptedMemoryModel(PARALLEL_SCRIPT) });
    try {
      const store = makeStore();
      await store.write("/memories/notes.md", new TextEncoder().encode(PARALLEL_START), { ifAbsent: true });
      await run(api, store, false);
      const expected = expectedToolResults(PARALLEL_SCRIPT);
      for (const [i, results] of expected.entries()) {
        expect(lastToolResults(api.received[i + 1]?.body ?? {})).toEqual(results);
      }
      expect(text((await store.read("/memories/notes.md"))?.data)).toBe(PARALLEL_END);
      expect(text((await store.read("/memories/todo.md"))?.data)).toBe("- y\n");
    } finally {
      await api.close();
    }
  });

  it("two conversations editing one file at once: both edits survive, through a refused and retried write", async () => {
    const apis = await Promise.all(
      CONCURRENT_SCRIPTS.map((script) => startScriptedApi({ model: scriptedMemoryModel(script) })),
    );
    try {
      const inner = makeStore();
      await inner.write("/memories/notes.md", new TextEncoder().encode(PARALLEL_START), { ifAbsent: true });
      const [store, counts] = raceReads(inner, "/memories/notes.md");
      await Promise.all(apis.map((api) => run(api, store, false)));

      expect(counts.conflicts).toBeGreaterThanOrEqual(1);
      for (const api of apis) {
        const [block, ...rest] = lastToolResults(api.received[1]?.body ?? {});
        expect(rest).toEqual([]);
        expect(block).not.toHaveProperty("is_error");
        expect(String((block as { content: unknown }).content).startsWith(EDITED_PREFIX)).toBe(true);
      }
      expect(text((await inner.read("/memories/notes.md"))?.data)).toBe(PARALLEL_END);
    } finally {
      await Promise.all(apis.map((api) => api.close()));
    }
  });
});

describe("options", () => {
  const calls = [
    { command: "create", path: "/memories/a.md", file_text: "second\n" },
    { command: "create", path: "/memories/b.md", file_text: "key AKIAIOSFODNN7EXAMPLE\n" },
    { command: "create", path: "/memories/c.md", file_text: "third\n" },
  ];
  const options = { createOverwrites: true, sensitive: false, maxFiles: 2 } as const;

  /** What the engine itself answers for the calls, one after the other, with `opts`. */
  const engine = async (opts: ExecuteOptions) => {
    const store = new InMemoryStore();
    await store.write("/memories/a.md", new TextEncoder().encode("first\n"), { ifAbsent: true });
    const out = [];
    for (const input of calls) out.push(await executeCommand(store, input, opts));
    return out;
  };

  it("createOverwrites, the guard and the quota reach the engine", async () => {
    const api = await startScriptedApi({ model: scriptedMemoryModel([{ calls, results: [] }]) });
    try {
      const store = new InMemoryStore();
      await store.write("/memories/a.md", new TextEncoder().encode("first\n"), { ifAbsent: true });
      await run(api, store, false, markToolErrors, options);
      const expected = await engine(options);
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
    } finally {
      await api.close();
    }
  });
});
