/** The demo itself: open the store, run the two sessions, show every step and the memory after each. */
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { type MemoryStore, ROOT } from "@mem/core";
import { HISTORY_NAME, HistoryStore, type VersionInfo } from "@mem/history";
import { describeStore, openStore, parseStoreUrl, type StoreSpec } from "@mem/open";
import { type ReceivedRequest, type ScriptedApi, startScriptedApi } from "@mem/testkit";
import {
  clip,
  createStyle,
  describeCall,
  indent,
  type Output,
  renderTree,
  type Style,
  type TreeFile,
  useColor,
} from "./render.js";
import { NOTES_PATH, SESSIONS, scriptedClaude } from "./scenario.js";
import { runSession, type SessionTranscript } from "./session.js";

export interface DemoOptions {
  store: string;
  model: string;
  keep: boolean;
  offline: boolean;
  env: Record<string, string | undefined>;
  /** Where relative `fs:` paths start from. */
  cwd: string;
  output: Output;
  /** Pause between streamed chunks of the offline Claude, for a readable pace. */
  chunkDelayMs?: number;
}

export interface DemoResult {
  offline: boolean;
  /** Offline: every request the local Messages API received. */
  requests: ReceivedRequest[];
  sessions: SessionTranscript[];
  /** The memory after each session. */
  memory: TreeFile[][];
  /** The earlier versions of the notes kept by `@mem/history`, newest first, and the memory after undoing the last change. */
  history: { versions: VersionInfo[]; afterUndo: TreeFile[] };
}

/** Marks an fs directory as the demo's own, so that clearing it never deletes anything else. */
const MARKER = ".mem-demo";

export class DemoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DemoError";
  }
}

export const runDemo = async (options: DemoOptions): Promise<DemoResult> => {
  const style = createStyle(useColor(options.output, options.env));
  const print = (text = "") => options.output.write(`${text}\n`);
  const spec = parseStoreUrl(options.store);
  const fsDir = localDirectory(spec, options.cwd);
  const ownDirectory = fsDir ? await prepareDirectory(fsDir, options.keep) : false;

  // Every change keeps the earlier content in the store's hidden history, so any of them can be undone.
  // openStore puts the HistoryStore around the store (a second one would keep every version twice).
  const base = await openStore(spec, { env: options.env, cwd: options.cwd, history: true });
  const store = base instanceof HistoryStore ? base : new HistoryStore(base);
  let api: ScriptedApi | undefined;
  try {
    print(
      `${style.bold("Claude memory demo")} ${style.dim("·")} memory in ${style.cyan(describeStore(resolved(spec, options.cwd)))}`,
    );
    const apiKey = options.env["ANTHROPIC_API_KEY"];
    const offline = options.offline || !apiKey;
    if (offline) {
      api = await startScriptedApi({ model: scriptedClaude, chunkDelayMs: options.chunkDelayMs ?? 0 });
      print(
        style.yellow(
          `Offline: a scripted Claude answers on a local Messages API at ${api.baseURL}, through the real SDK and tool runner.`,
        ),
      );
      print(style.dim("Set ANTHROPIC_API_KEY to talk to the real API."));
    } else {
      print(`Talking to the Anthropic API with ${style.bold(options.model)}.`);
    }
    const client = api
      ? new Anthropic({ apiKey: "offline-demo", baseURL: api.baseURL, maxRetries: 0 })
      : new Anthropic({ apiKey: apiKey ?? null });

    if (fsDir && ownDirectory) {
      await writeFile(join(fsDir, MARKER), "A memory directory of the @mem/demo app.\n", { mode: 0o600 });
    }
    if (options.keep) {
      print(style.dim("Keeping the memory as it is (--keep)."));
    } else {
      await clearMemory(store);
      await base.delete(`${ROOT}/${HISTORY_NAME}`);
      print(style.dim("Starting from an empty memory (--keep reuses it)."));
    }

    const result: DemoResult = {
      offline,
      requests: api?.received ?? [],
      sessions: [],
      memory: [],
      history: { versions: [], afterUndo: [] },
    };
    for (const [i, session] of SESSIONS.entries()) {
      print();
      print(
        style.bold(style.blue(`━━ ${session.title} ${"━".repeat(Math.max(4, 72 - session.title.length))}`)),
      );
      print(`${style.bold(style.green("you ›"))} ${indent(session.prompt, "      ").trimStart()}`);
      const transcript = await runSession(
        { client, model: options.model, store, prompt: session.prompt },
        sessionPrinter(options.output, style),
      );
      print();
      result.sessions.push(transcript);
      const files = await memoryFiles(store);
      result.memory.push(files);
      print();
      print(style.bold(`── memory after session ${i + 1} ${"─".repeat(50)}`));
      print(renderTree(files, style));
    }
    result.history = await showHistory(store, print, style);
    print();
    print(
      style.dim(
        offline
          ? "The second session knew only what the first one stored in memory."
          : "Both sessions ran against the real API; the second one started with an empty context.",
      ),
    );
    return result;
  } finally {
    await api?.close();
    await store.close?.();
  }
};

/** Lists the kept versions of the notes and undoes the last change with `restore`. */
const showHistory = async (store: HistoryStore, print: (text?: string) => void, style: Style) => {
  const versions = await store.versions(NOTES_PATH);
  print();
  print(style.bold(`── history of ${NOTES_PATH} (@mem/history) ${"─".repeat(20)}`));
  if (!versions[0]) {
    print(style.dim("No earlier versions: the notes were never changed."));
    return { versions, afterUndo: await memoryFiles(store) };
  }
  print(`${versions.length} earlier version(s), newest first:`);
  for (const v of versions)
    print(`  ${style.cyan(v.id)}  ${new Date(v.time).toISOString()}  ${v.size} bytes`);
  print(`Undoing the last change: ${style.bold(`store.restore("${NOTES_PATH}", "${versions[0].id}")`)}`);
  const { replacedVersionId } = await store.restore(NOTES_PATH, versions[0].id);
  const afterUndo = await memoryFiles(store);
  print(renderTree(afterUndo, style));
  print(
    style.dim(
      `The restore kept the replaced content as version ${replacedVersionId}, so it can be undone too.`,
    ),
  );
  return { versions, afterUndo };
};

const sessionPrinter = (output: Output, style: Style) => ({
  text(delta: string, start: boolean) {
    if (start) output.write(`\n${style.bold(style.magenta("claude ›"))} `);
    output.write(delta.replaceAll("\n", "\n         "));
  },
  toolCall(input: unknown) {
    output.write(`\n  ${style.yellow("⚙ memory")} ${describeCall(input, style)}\n`);
  },
  toolResult(call: { content: string; isError: boolean }) {
    const body = indent(clip(call.content, 14), "      ");
    output.write(
      call.isError ? `  ${style.red(`✗ error\n${body}`)}\n` : `  ${style.green("↳")}\n${style.dim(body)}\n`,
    );
  },
});

/** The spec with its fs directory made absolute, for display. */
const resolved = (spec: StoreSpec, cwd: string): StoreSpec =>
  spec.backend.kind === "fs"
    ? { ...spec, backend: { ...spec.backend, root: resolve(cwd, spec.backend.root) } }
    : spec;

/** The local directory of an fs store (also under encryption), if that is what the spec names. */
const localDirectory = (spec: StoreSpec, cwd: string): string | undefined =>
  spec.backend.kind === "fs" ? resolve(cwd, spec.backend.root) : undefined;

/**
 * Creates the directory if needed and tells whether it is the demo's own: new, empty or marked. The demo
 * refuses to clear a directory that holds anything it did not put there.
 */
const prepareDirectory = async (dir: string, keep: boolean): Promise<boolean> => {
  const existing = await stat(dir).catch(() => null);
  if (!existing) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return true;
  }
  if (!existing.isDirectory()) throw new DemoError(`${dir} exists and is not a directory.`);
  const names = await readdir(dir);
  const own = names.length === 0 || names.includes(MARKER);
  if (!own && !keep) {
    throw new DemoError(
      `${dir} is not empty and was not created by this demo, so it will not be cleared. Pass --keep to use it as it is, or pick another directory with --store fs:<dir>.`,
    );
  }
  return own;
};

/** Deletes everything the store lists under /memories. */
const clearMemory = async (store: MemoryStore): Promise<void> => {
  const listing = await store.list(ROOT, 1);
  for (const entry of listing?.entries ?? []) await store.delete(entry.path);
};

/** Every listed file of the memory directory with its content, in path order. */
export const memoryFiles = async (store: MemoryStore): Promise<TreeFile[]> => {
  const listing = await store.list(ROOT, 64);
  const files = (listing?.entries ?? [])
    .filter((e) => e.kind === "file")
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const decoder = new TextDecoder();
  return Promise.all(
    files.map(async (f) => {
      const data = await store.read(f.path);
      return { path: f.path, size: f.size, content: data ? decoder.decode(data.data) : "" };
    }),
  );
};
