/**
 * The demo's story, after the memory tool documentation's example: debugging a web scraper that keeps
 * timing out. The first session finds the cause and records it in memory; the second starts with an
 * empty context, reads its memory first, and carries on from the notes.
 *
 * Offline, a scripted model plays Claude. It is not a recording: each turn is decided from what the
 * memory tool actually returned, so the second session only knows what the first one stored.
 */
import type { Conversation, Message, ScriptedBlock, ScriptedModel, ToolResultBlock } from "@mem/testkit";

export interface Session {
  title: string;
  prompt: string;
}

/** A made-up GitHub token in the user's first message (assembled from pieces; it was never valid). */
export const DEMO_TOKEN = ["ghp", "_", "Demo0Token1NotReal2".repeat(2)].join("");

export const SESSIONS: readonly Session[] = [
  {
    title: "Session 1: debugging the scraper",
    prompt: `I'm working on a Python web scraper that keeps crashing with a timeout error. Here's the problematic function:

\`\`\`python
def fetch_page(url, retries=3):
    for i in range(retries):
        try:
            response = requests.get(url, timeout=5)
            return response.text
        except requests.exceptions.Timeout:
            if i == retries - 1:
                raise
            time.sleep(1)
\`\`\`

It logs in to the site with the token ${DEMO_TOKEN}.

Please help me debug this.`,
  },
  {
    title: "Session 2: a new conversation, nothing in context but memory",
    prompt:
      "Let's continue with the web scraper. I applied your fix and the timeouts are gone, but now the site answers many requests with HTTP 429 Too Many Requests. What should I change?",
  },
];

export const NOTES_PATH = "/memories/web_scraper_debugging.md";

export const INITIAL_NOTES = `# Web scraper debugging

## Task
fetch_page(url, retries=3) crashes with requests.exceptions.Timeout.

## Status
Investigating.

## Findings
- timeout=5 is one number for connect and read; slow pages exceed the read part.
- The retry waits a fixed 1s, so every attempt hits the same slow window.
- The last attempt re-raises, so one slow page stops the whole crawl.
`;

const FIX_STATUS =
  "Fix proposed: timeout=(3.05, 30), exponential backoff (1s, 2s, 4s), give up on a page without crashing. Waiting for the user to test it.";

const RATE_LIMIT_STATUS =
  "Fix applied, timeouts are gone. New problem: HTTP 429 Too Many Requests; proposed honouring Retry-After and pacing requests per host.";

const RATE_LIMIT_FINDING =
  "- HTTP 429 means the site rate-limits us: wait for Retry-After, keep ~1 request/s per host.\n";

/** A memory tool (or memory_search) call of the conversation with what it returned. */
interface Call {
  name: string;
  input: Record<string, unknown>;
  result: string;
  isError: boolean;
}

const text = (t: string): ScriptedBlock => ({ type: "text", text: t });
const memory = (input: Record<string, unknown>): ScriptedBlock => ({
  type: "tool_use",
  name: "memory",
  input,
});
const search = (input: Record<string, unknown>): ScriptedBlock => ({
  type: "tool_use",
  name: "memory_search",
  input,
});

/** The query the second session looks its notes up with. */
export const SEARCH_QUERY = "fetch_page";

/** The files of a memory_search result's hit lines (`{path}:{line}: {text}`), in order, once each. */
export const hitFiles = (result: string): string[] => [
  ...new Set(
    result
      .split("\n")
      .slice(1)
      .map((line) => /^(\/memories\/.*?):\d+: /.exec(line)?.[1])
      .filter((path): path is string => path !== undefined),
  ),
];

/** Claude's part, scripted: picks the session from the opening prompt and reacts to the tool results. */
export const scriptedClaude: ScriptedModel = (conversation) => {
  const calls = memoryCalls(conversation);
  return firstUserText(conversation.messages) === SESSIONS[1]?.prompt
    ? continueSession(calls)
    : firstSession(calls);
};

const firstSession = (calls: Call[]): ScriptedBlock[] => {
  const last = calls.at(-1);
  if (!last) {
    return [
      text("I'll help you debug the timeout. Let me check my memory directory for earlier progress first."),
      memory({ command: "view", path: "/memories" }),
    ];
  }
  if (last.input["command"] === "view" && last.input["path"] === "/memories") {
    const known = listedFiles(last.result);
    if (known[0]) {
      return [
        text("I have notes from an earlier session. Let me read them."),
        memory({ command: "view", path: known[0] }),
      ];
    }
    return [
      text(
        "My memory directory is empty, so this is a fresh start. Before digging in I'll note the task, what I see in the code and how the scraper logs in, so a later session can pick it up.",
      ),
      memory({
        command: "create",
        path: NOTES_PATH,
        file_text: `${INITIAL_NOTES}\n## Access\n- Token: ${DEMO_TOKEN}\n`,
      }),
    ];
  }
  if (last.input["command"] === "create" && last.isError && last.result.includes("looks like")) {
    return [
      text("My memory refused that: it does not keep secrets. I'll leave the token out of my notes."),
      memory({ command: "create", path: NOTES_PATH, file_text: INITIAL_NOTES }),
    ];
  }
  if (last.input["command"] === "create" && !last.isError) {
    return [
      text("I know what to suggest. Let me record the proposed fix in my notes before I explain it."),
      memory({ command: "str_replace", path: NOTES_PATH, old_str: "Investigating.", new_str: FIX_STATUS }),
    ];
  }
  if (last.input["command"] === "str_replace" && !last.isError) {
    return [
      text(`Three things make this crash:

1. \`timeout=5\` covers both connecting and reading, and slow pages need longer to send their body.
2. A fixed \`time.sleep(1)\` retries straight into the same slow window.
3. The last attempt re-raises, so one slow page stops the whole run.

\`\`\`python
def fetch_page(url, retries=3):
    for i in range(retries):
        try:
            response = requests.get(url, timeout=(3.05, 30))
            response.raise_for_status()
            return response.text
        except (requests.exceptions.Timeout, requests.exceptions.ConnectionError):
            if i == retries - 1:
                return None  # give up on this page, keep crawling
            time.sleep(2 ** i)
\`\`\`

I've recorded this in my memory, so we can pick it up next time.`),
    ];
  }
  if (last.input["command"] === "view" && !last.isError) {
    return [text(`I already have notes on this scraper:\n\n${numberedText(last.result)}`)];
  }
  return [text(`My memory tool answered with an error, so I'll stop here:\n\n${last.result}`)];
};

const continueSession = (calls: Call[]): ScriptedBlock[] => {
  const last = calls.at(-1);
  if (!last) {
    return [text("Let me check my memory directory first."), memory({ command: "view", path: "/memories" })];
  }
  const notes = calls.find(
    (c) =>
      c.name === "memory" && c.input["command"] === "view" && c.input["path"] !== "/memories" && !c.isError,
  );
  if (last.input["command"] === "view" && last.input["path"] === "/memories") {
    const known = listedFiles(last.result);
    if (!known[0]) {
      return [
        text(
          "My memory directory is empty, so I have no record of our earlier work. Could you share the scraper code again?",
        ),
      ];
    }
    return [
      text("I have notes from an earlier session. Let me find the ones about the scraper."),
      search({ query: SEARCH_QUERY }),
    ];
  }
  if (last.name === "memory_search") {
    const found = last.isError ? undefined : hitFiles(last.result)[0];
    const listing = calls.find((c) => c.input["command"] === "view" && c.input["path"] === "/memories");
    const path = found ?? listedFiles(listing?.result ?? "")[0] ?? NOTES_PATH;
    return [
      text(found ? "These are my notes on fetch_page. Let me read them." : "Let me read the notes I have."),
      memory({ command: "view", path }),
    ];
  }
  if (last === notes) {
    const lines = numberedText(last.result).split("\n");
    const status = lines[lines.indexOf("## Status") + 1] ?? "";
    return [
      text(
        `My notes say where we left off: "${status}" A 429 is the site rate-limiting us, which is a new problem. Let me update the status.`,
      ),
      memory({
        command: "str_replace",
        path: String(last.input["path"]),
        old_str: status,
        new_str: RATE_LIMIT_STATUS,
      }),
    ];
  }
  if (last.input["command"] === "str_replace" && notes && !last.isError) {
    const lineCount = numberedText(notes.result).split("\n").length;
    return [
      text("And add what we learned about the rate limit to the findings."),
      memory({
        command: "insert",
        path: String(notes.input["path"]),
        insert_line: lineCount,
        insert_text: RATE_LIMIT_FINDING,
      }),
    ];
  }
  return [
    text(`Picking up from my notes: the timeout fix from last time stays, and the 429s need the scraper to slow down rather than retry harder.

\`\`\`python
def fetch_page(url, retries=3):
    for i in range(retries):
        try:
            response = requests.get(url, timeout=(3.05, 30))
            if response.status_code == 429:
                time.sleep(float(response.headers.get("Retry-After", 2 ** i)))
                continue
            response.raise_for_status()
            return response.text
        except (requests.exceptions.Timeout, requests.exceptions.ConnectionError):
            if i == retries - 1:
                return None
            time.sleep(2 ** i)
    return None
\`\`\`

Also keep to about one request per second per host (e.g. \`time.sleep(1)\` between pages). My notes are updated, so the next session starts from here.`),
  ];
};

/** The memory tool calls of the conversation, each paired with its result. */
const memoryCalls = (conversation: Conversation): Call[] => {
  const results = new Map<string, ToolResultBlock>();
  for (const message of conversation.messages) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type === "tool_result") {
        const result = block as ToolResultBlock;
        results.set(result.tool_use_id, result);
      }
    }
  }
  const calls: Call[] = [];
  for (const message of conversation.messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type !== "tool_use" || !("name" in block)) continue;
      if (block.name !== "memory" && block.name !== "memory_search") continue;
      const result = results.get(block.id);
      if (!result) continue;
      calls.push({
        name: block.name,
        input: block.input,
        result: resultText(result),
        isError: result.is_error === true,
      });
    }
  }
  return calls;
};

const resultText = (result: ToolResultBlock): string =>
  typeof result.content === "string"
    ? result.content
    : (result.content ?? []).map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("");

const firstUserText = (messages: Message[]): string => {
  const first = messages.find((m) => m.role === "user");
  if (!first) return "";
  if (typeof first.content === "string") return first.content;
  return first.content.map((b) => (b.type === "text" && "text" in b ? b.text : "")).join("");
};

/** File paths of a directory view result (`{size}\t{path}` lines; directories end with `/`). */
export const listedFiles = (listing: string): string[] =>
  listing
    .split("\n")
    .slice(2)
    .map((line) => line.slice(line.indexOf("\t") + 1))
    .filter((path) => path !== "" && !path.endsWith("/"));

/** The text of a file view result, without its header and line numbers. */
export const numberedText = (view: string): string =>
  view
    .split("\n")
    .slice(1)
    .map((line) => line.replace(/^ *\d+\t/, ""))
    .join("\n");
