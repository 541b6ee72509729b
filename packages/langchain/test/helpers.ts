import { ChatAnthropic } from "@langchain/anthropic";

/** ChatAnthropic pointed at a scripted Messages API, without retries. */
export const chatModel = (api: { baseURL: string }, streaming: boolean): ChatAnthropic =>
  new ChatAnthropic({
    model: "claude-test",
    apiKey: "offline",
    anthropicApiUrl: api.baseURL,
    maxRetries: 0,
    maxTokens: 1024,
    streaming,
  });

const COMMAND_PARAMS: Record<string, Record<string, unknown>> = {
  view: { path: "/memories" },
  create: { path: "/memories/a.md", file_text: "a\n" },
  str_replace: { path: "/memories/a.md", old_str: "a", new_str: "b" },
  insert: { path: "/memories/a.md", insert_line: 0, insert_text: "x\n" },
  delete: { path: "/memories/a.md" },
  rename: { old_path: "/memories/a.md", new_path: "/memories/b.md" },
};

const WRONG_TYPES: readonly unknown[] = [42, null, ["x"]];

const HOSTILE_PATHS = [
  "/etc/passwd",
  "/memories/../etc/passwd",
  "/memories/\uff0e\uff0e/etc/passwd",
  "/memories/%2e%2e/etc",
  "\\memories\\notes.md",
  "memories/notes.md",
  "/memories\u0000/notes.md",
  "/memories/\ud800",
  "file:///memories/notes.md",
  "",
];

/**
 * Malformed inputs of the memory tool, none of which a schema would let through and all of which the
 * engine answers with the spec's errors: values that are not objects, unknown commands, each command
 * with each parameter missing or of each wrong type, and hostile paths.
 */
export const MALFORMED_INPUTS: readonly unknown[] = [
  null,
  42,
  "view /memories",
  [],
  [{ command: "view", path: "/memories" }],
  {},
  { command: "list", path: "/memories" },
  { command: 1, path: "/memories" },
  ...Object.entries(COMMAND_PARAMS).flatMap(([command, params]) =>
    Object.keys(params).flatMap((key) => {
      const { [key]: _dropped, ...rest } = params;
      return [{ command, ...rest }, ...WRONG_TYPES.map((wrong) => ({ command, ...params, [key]: wrong }))];
    }),
  ),
  ...HOSTILE_PATHS.flatMap((path) => [{ command: "view", path }]),
];
