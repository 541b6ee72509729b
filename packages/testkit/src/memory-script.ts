/**
 * A scripted memory tool conversation for the tests of framework integrations: the scripted model's turns,
 * the `tool_result` blocks the next request must carry for given answers, and a store wrapper that makes
 * concurrent edits of one file race for certain.
 */
import {
  type Block,
  type ContentBlock,
  type Conversation,
  type ScriptedBlock,
  type ScriptedModel,
  toolResult,
  toolResults,
  toolUse,
} from "@mem/testing";

/** A 16-byte PNG (signature and the start of IHDR): enough for a view to answer with an image. */
export const PNG_BYTES = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
export const PNG_PATH = "/memories/chart.png";

/** One assistant turn: the memory tool calls it makes. */
export interface ScriptTurn {
  calls: Record<string, unknown>[];
}

/**
 * What the tool answers one call with: the content of its `tool_result` and whether it is an error. The
 * checks take the expected answers from the engine itself (core owns every string the model sees).
 */
export interface Answer {
  content: string | Block[];
  isError: boolean;
}

/**
 * view, create, str_replace, the view of an image, an error of the engine and an input no schema would
 * let through (the engine must answer it, not the framework). The store starts with {@link PNG_BYTES} at
 * {@link PNG_PATH}.
 */
export const MEMORY_SCRIPT: readonly ScriptTurn[] = [
  { calls: [{ command: "view", path: "/memories" }] },
  { calls: [{ command: "create", path: "/memories/notes.md", file_text: "# Notes\n- a\n- b\n" }] },
  { calls: [{ command: "str_replace", path: "/memories/notes.md", old_str: "- a", new_str: "- A" }] },
  { calls: [{ command: "view", path: PNG_PATH }] },
  { calls: [{ command: "str_replace", path: "/memories/notes.md", old_str: "- z", new_str: "- Z" }] },
  { calls: [{ command: "view" }] },
];

/** The file the script leaves behind. */
export const SCRIPT_NOTES = "# Notes\n- A\n- b\n";
export const SCRIPT_FINAL_TEXT = "Memory is up to date.";

/**
 * Calls in one turn that depend on each other's order: a create and an edit of the new file, two edits of
 * one file; then a view. The store starts with `/memories/notes.md` holding {@link PARALLEL_START}.
 */
export const PARALLEL_START = "# Notes\n- a\n- b\n";
/** The two edits of `/memories/notes.md` the parallel and the concurrent scripts make. */
export const NOTES_EDITS = [
  { command: "str_replace", path: "/memories/notes.md", old_str: "- a", new_str: "- A" },
  { command: "str_replace", path: "/memories/notes.md", old_str: "- b", new_str: "- B" },
] as const;
export const PARALLEL_SCRIPT: readonly ScriptTurn[] = [
  {
    calls: [
      { command: "create", path: "/memories/todo.md", file_text: "- x\n" },
      { command: "str_replace", path: "/memories/todo.md", old_str: "- x", new_str: "- y" },
      ...NOTES_EDITS,
    ],
  },
  { calls: [{ command: "view", path: "/memories/notes.md" }] },
];
export const PARALLEL_END = "# Notes\n- A\n- B\n";

/**
 * Two conversations on one store, each editing its own line of `/memories/notes.md` (which starts as
 * {@link PARALLEL_START}). Run at the same time over {@link raceReads}, both edits must survive, and each
 * gets the answer its edit gets in one of the two orders.
 */
export const CONCURRENT_SCRIPTS: readonly [ScriptTurn[], ScriptTurn[]] = [
  [{ calls: [NOTES_EDITS[0]] }],
  [{ calls: [NOTES_EDITS[1]] }],
];

/** The scripted model that plays `script`'s turns in order, then says `finalText`. */
export const scriptedMemoryModel =
  (script: readonly ScriptTurn[], finalText = SCRIPT_FINAL_TEXT): ScriptedModel =>
  (conversation: Conversation): ScriptedBlock[] => {
    const turn = script[conversation.messages.filter((m) => m.role === "assistant").length];
    if (!turn) return [{ type: "text", text: finalText }];
    return turn.calls.map((input) => toolUse("memory", input));
  };

/**
 * The scripted model of a short demonstration: one memory tool call a turn, `calls` in order, then
 * `finalText`.
 */
export const oneCallPerTurn = (calls: readonly Record<string, unknown>[], finalText: string): ScriptedModel =>
  scriptedMemoryModel(
    calls.map((call) => ({ calls: [call] })),
    finalText,
  );

/**
 * The `tool_result` blocks each request after the first must carry, given the answers of each turn's
 * calls (the server numbers tool uses `toolu_demo_001`, ... in order). `is_error` appears only on errors.
 */
export const expectedToolResults = (answers: readonly (readonly Answer[])[]): Record<string, unknown>[][] => {
  let uses = 0;
  return answers.map((turn) =>
    turn.map((answer) => ({
      ...toolResult(++uses, answer.content as ContentBlock[] | string, { isError: answer.isError }),
    })),
  );
};

/** The `tool_result` blocks of a request's last message. */
export const lastToolResults = (body: Record<string, unknown>): Block[] => toolResults({ body, headers: {} });

/** What {@link raceReads} saw. */
export interface RaceCounts {
  /** Writes refused because another writer changed the file first. */
  conflicts: number;
}

interface Readable {
  read(path: string): Promise<unknown>;
  write(path: string, ...rest: never[]): Promise<unknown>;
}

/**
 * Wraps a store so that the first `readers` reads of `path` wait for each other: every one of those
 * writers then holds the same version, so all but one write must be refused and retried. Edits that run
 * one after the other instead never get past the barrier (the test times out), so a passing test shows
 * that they ran concurrently and that the store's conditional writes, not their timing, kept both. The
 * store's native `update`, if any, is hidden, so that edits take the read-then-conditional-write path.
 */
export const raceReads = <T extends Readable>(store: T, path: string, readers = 2): [T, RaceCounts] => {
  const counts: RaceCounts = { conflicts: 0 };
  let waiting: (() => void)[] = [];
  let open = false;
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      // Without a native `update`, edits go through `read` and a conditional `write`.
      if (key === "update") return undefined;
      if (key === "read") {
        return async (p: string) => {
          if (p === path && !open) {
            await new Promise<void>((resolve) => {
              waiting.push(resolve);
              if (waiting.length === readers) {
                open = true;
                for (const release of waiting) release();
                waiting = [];
              }
            });
          }
          return target.read(p);
        };
      }
      if (key === "write") {
        return async (...args: unknown[]) => {
          try {
            return await (target.write as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          } catch (error) {
            if ((error as { code?: unknown } | null)?.code === "CONFLICT") counts.conflicts += 1;
            throw error;
          }
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return [proxy, counts];
};
