/**
 * A scripted memory tool conversation for the tests of framework integrations: the scripted model's turns,
 * the exact `tool_result` blocks the next request must carry, and a store wrapper that makes concurrent
 * edits of one file race for certain.
 */
import type { Block, Conversation, ScriptedBlock, ScriptedModel } from "./scripted-api.js";

/** A 16-byte PNG (signature and the start of IHDR): enough for a view to answer with an image. */
export const PNG_BYTES = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
export const PNG_PATH = "/memories/chart.png";

/** One assistant turn: the memory tool calls it makes, and the results the next request must carry. */
export interface ScriptTurn {
  calls: Record<string, unknown>[];
  results: { content: string | Block[]; isError: boolean }[];
}

const EDITED =
  "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n";

/**
 * view, create, str_replace, the view of an image, an error of the engine and an input no schema would
 * let through (the engine must answer it, not the framework). The store starts with {@link PNG_BYTES} at
 * {@link PNG_PATH}.
 */
export const MEMORY_SCRIPT: readonly ScriptTurn[] = [
  {
    calls: [{ command: "view", path: "/memories" }],
    results: [
      {
        content:
          "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n16B\t/memories\n16B\t/memories/chart.png",
        isError: false,
      },
    ],
  },
  {
    calls: [{ command: "create", path: "/memories/notes.md", file_text: "# Notes\n- a\n- b\n" }],
    results: [{ content: "File created successfully at: /memories/notes.md", isError: false }],
  },
  {
    calls: [{ command: "str_replace", path: "/memories/notes.md", old_str: "- a", new_str: "- A" }],
    results: [{ content: `${EDITED}     1\t# Notes\n     2\t- A\n     3\t- b`, isError: false }],
  },
  {
    calls: [{ command: "view", path: PNG_PATH }],
    results: [
      {
        content: [
          { type: "text", text: `Here's the image ${PNG_PATH}:` },
          {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgoAAAANSUhEUg==" },
          },
        ] as Block[],
        isError: false,
      },
    ],
  },
  {
    calls: [{ command: "str_replace", path: "/memories/notes.md", old_str: "- z", new_str: "- Z" }],
    results: [
      {
        content: "No replacement was performed, old_str `- z` did not appear verbatim in /memories/notes.md.",
        isError: true,
      },
    ],
  },
  {
    calls: [{ command: "view" }],
    results: [{ content: "Error: Missing required parameter `path` for command `view`", isError: true }],
  },
];

/** The file the script leaves behind. */
export const SCRIPT_NOTES = "# Notes\n- A\n- b\n";
export const SCRIPT_FINAL_TEXT = "Memory is up to date.";

/**
 * Calls in one turn that depend on each other's order: a create and an edit of the new file, two edits of
 * one file; then a view. The store starts with `/memories/notes.md` holding {@link PARALLEL_START}.
 */
export const PARALLEL_START = "# Notes\n- a\n- b\n";
const NOTES_A = { command: "str_replace", path: "/memories/notes.md", old_str: "- a", new_str: "- A" };
const NOTES_B = { command: "str_replace", path: "/memories/notes.md", old_str: "- b", new_str: "- B" };
export const PARALLEL_SCRIPT: readonly ScriptTurn[] = [
  {
    calls: [
      { command: "create", path: "/memories/todo.md", file_text: "- x\n" },
      { command: "str_replace", path: "/memories/todo.md", old_str: "- x", new_str: "- y" },
      NOTES_A,
      NOTES_B,
    ],
    results: [
      { content: "File created successfully at: /memories/todo.md", isError: false },
      { content: `${EDITED}     1\t- y`, isError: false },
      { content: `${EDITED}     1\t# Notes\n     2\t- A\n     3\t- b`, isError: false },
      { content: `${EDITED}     1\t# Notes\n     2\t- A\n     3\t- B`, isError: false },
    ],
  },
  {
    calls: [{ command: "view", path: "/memories/notes.md" }],
    results: [
      {
        content:
          "Here's the content of /memories/notes.md with line numbers:\n     1\t# Notes\n     2\t- A\n     3\t- B",
        isError: false,
      },
    ],
  },
];
export const PARALLEL_END = "# Notes\n- A\n- B\n";

/**
 * Two conversations on one store, each editing its own line of `/memories/notes.md` (which starts as
 * {@link PARALLEL_START}). Run at the same time over {@link raceReads}, both edits must survive. Their
 * snippets depend on which edit landed first, so `results` is empty: check them by their start.
 */
export const CONCURRENT_SCRIPTS: readonly [ScriptTurn[], ScriptTurn[]] = [
  [{ calls: [NOTES_A], results: [] }],
  [{ calls: [NOTES_B], results: [] }],
];
export const EDITED_PREFIX = EDITED;

/** The scripted model that plays `script`'s turns in order, then says `finalText`. */
export const scriptedMemoryModel =
  (script: readonly ScriptTurn[], finalText = SCRIPT_FINAL_TEXT): ScriptedModel =>
  (conversation: Conversation): ScriptedBlock[] => {
    const turn = script[conversation.messages.filter((m) => m.role === "assistant").length];
    if (!turn) return [{ type: "text", text: finalText }];
    return turn.calls.map((input) => ({ type: "tool_use", name: "memory", input }));
  };

/**
 * The scripted model of a short demonstration: one memory tool call a turn, `calls` in order, then
 * `finalText`.
 */
export const oneCallPerTurn = (calls: readonly Record<string, unknown>[], finalText: string): ScriptedModel =>
  scriptedMemoryModel(
    calls.map((call) => ({ calls: [call], results: [] })),
    finalText,
  );

/**
 * The `tool_result` blocks each request after the first must carry for `script` on a fresh server (the
 * server numbers tool uses `toolu_demo_001`, ... in order). `is_error` appears only on errors.
 */
export const expectedToolResults = (script: readonly ScriptTurn[]): Record<string, unknown>[][] => {
  let uses = 0;
  return script.map((turn) => {
    const first = uses;
    uses += turn.calls.length;
    return turn.results.map((result, i) => ({
      type: "tool_result",
      tool_use_id: `toolu_demo_${String(first + i + 1).padStart(3, "0")}`,
      content: result.content,
      ...(result.isError && { is_error: true }),
    }));
  });
};

/** The `tool_result` blocks of a request's last message. */
export const lastToolResults = (body: Record<string, unknown>): Block[] => {
  const messages = body["messages"] as { content: string | Block[] }[];
  const content = messages.at(-1)?.content;
  return Array.isArray(content) ? content.filter((b) => b.type === "tool_result") : [];
};

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
