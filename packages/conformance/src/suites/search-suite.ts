/**
 * `memory_search` (SPEC §9) on every store: the golden transcripts of `golden/search/`, played through
 * `executeSearch` (steps with a `command` go to `executeCommand`, to change files between searches), and
 * the same hits through the store's own index and through core's fallback.
 */
import { executeCommand, executeSearch, type MemoryStore, searchMemory } from "@mem/core";
import { loadSearchTranscripts } from "../golden.js";
import { playTranscript, type TranscriptExecutor } from "../transcript.js";
import type { Harness } from "./harness.js";

/** The search transcripts shipped with this package, in the golden format. */
export const searchTranscripts = loadSearchTranscripts;

const isCommand = (input: unknown): boolean =>
  typeof input === "object" && input !== null && Object.hasOwn(input, "command");

/**
 * How a `memory_search` transcript is played on `store`: steps with a `command` through `executeCommand`
 * (to change files between searches), the others through `executeSearch`.
 */
export const searchExecutor =
  (store: MemoryStore): TranscriptExecutor =>
  (input, options) =>
    isCommand(input)
      ? executeCommand(store, input, options)
      : executeSearch(store, input, options.viewCharLimit ? { viewCharLimit: options.viewCharLimit } : {});

/** The store without its own `search()`: what core's fallback finds. */
const withoutIndex = (store: MemoryStore): MemoryStore =>
  new Proxy(store, {
    get: (target, key) => {
      if (key === "search") return undefined;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });

export function searchSuite<S extends MemoryStore>(harness: Harness<S>, tenants: boolean): void {
  const { describe, it, expect } = harness;
  describe("memory_search", () => {
    for (const transcript of searchTranscripts()) {
      it(
        `${transcript.name}: ${transcript.description}`,
        () => harness.withStore((store) => playTranscript(store, transcript, searchExecutor(store), expect)),
        harness.timeout,
      );
    }

    it(
      "finds the same lines through the store's index as through core's fallback, after every kind of write",
      () =>
        harness.withStore(async (store) => {
          const run = (input: object) => executeCommand(store, input, { sensitive: false });
          await run({
            command: "create",
            path: "/memories/notes/a.md",
            file_text: "Alpha tea\nbeta\nTEA time\n",
          });
          await run({ command: "create", path: "/memories/notes/b.md", file_text: "nothing\n" });
          await run({ command: "create", path: "/memories/c.md", file_text: "ſtar Kelvin\ngrüne Tee\n" });
          await run({
            command: "str_replace",
            path: "/memories/notes/b.md",
            old_str: "nothing",
            new_str: "tea now",
          });
          await run({
            command: "insert",
            path: "/memories/c.md",
            insert_line: 0,
            insert_text: "tea first\n",
          });
          await run({ command: "rename", old_path: "/memories/notes", new_path: "/memories/moved" });
          await run({ command: "create", path: "/memories/gone.md", file_text: "tea\n" });
          await run({ command: "delete", path: "/memories/gone.md" });
          const queries = [
            { query: "tea" },
            { query: "TEA", caseSensitive: true },
            { query: "STAR" },
            { query: "kelvin" },
            { query: "GRÜNE" },
            { query: "^tea", regex: true },
            { query: "ea\\s+(now|time)", regex: true },
            { query: "tea", path: "/memories/moved" },
            { query: "be" },
          ];
          for (const query of queries) {
            const native = await searchMemory(store, query);
            const fallback = await searchMemory(withoutIndex(store), query);
            expect(native, JSON.stringify(query)).toEqual(fallback);
          }
          expect(
            (await searchMemory(store, { query: "tea" })).hits.map((h) => `${h.path}:${h.line}`),
          ).toEqual([
            "/memories/c.md:1",
            "/memories/moved/a.md:1",
            "/memories/moved/a.md:3",
            "/memories/moved/b.md:1",
          ]);
        }),
      harness.timeout,
    );

    if (tenants) {
      it(
        "never crosses tenants",
        () =>
          harness.withStore(async (store) => {
            const a = store.scope?.("search-a");
            const b = store.scope?.("search-b");
            if (!a || !b) throw new Error("the store was declared with tenants but has no scope()");
            await executeCommand(a, { command: "create", path: "/memories/a.md", file_text: "tea of a\n" });
            await executeCommand(b, { command: "create", path: "/memories/b.md", file_text: "tea of b\n" });
            await executeCommand(store, { command: "create", path: "/memories/root.md", file_text: "tea\n" });
            for (const [scope, only] of [
              [a, "/memories/a.md"],
              [b, "/memories/b.md"],
            ] as const) {
              const { hits } = await searchMemory(scope, { query: "tea" });
              expect(hits.map((hit) => hit.path)).toEqual([only]);
              expect((await searchMemory(withoutIndex(scope), { query: "tea" })).hits).toEqual(hits);
            }
            expect((await searchMemory(store, { query: "tea" })).hits.map((hit) => hit.path)).toEqual([
              "/memories/root.md",
            ]);
          }),
        harness.timeout,
      );
    }
  });
}
