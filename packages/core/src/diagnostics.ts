/**
 * Commands and storage calls published on `node:diagnostics_channel` tracing channels, for tracers and
 * metrics (`@mem/otel`) to subscribe to. Nothing is built while nobody listens, and outside Node (a
 * browser bundle) there are no channels at all.
 */
import type { TracingChannel } from "node:diagnostics_channel";
import { isStoreError } from "./failure.js";
import { msg } from "./messages.js";
import type { CommandName } from "./parse.js";
import { validatePath } from "./path.js";
import type { MemoryStore } from "./store.js";
import { utf8Length } from "./text.js";

/** The tracing channel of tool commands: `tracing:mem.command:start`, `…:asyncEnd`, … */
export const COMMAND_CHANNEL = "mem.command";
/** The tracing channel of the storage calls a command makes. */
export const STORE_CHANNEL = "mem.store";

/** How a command ended: done, failed, or refused by a policy (sensitive-data guard, quota, size limit). */
export type CommandOutcome = "ok" | "error" | "refused";

/**
 * The context object of one command on `COMMAND_CHANNEL`: the same object from `start` to `asyncEnd`.
 * It never holds file content or secrets; `result` (set by the channel) is the tool result itself.
 */
export interface CommandTrace {
  /** The command named by the input; absent when the input names none. */
  readonly command: CommandName | undefined;
  /** The canonical path (`old_path` for rename), known by `asyncEnd`; absent when the input has no valid one. */
  path: string | undefined;
  /** `rename` only: the canonical `new_path`, known by `asyncEnd`. */
  newPath: string | undefined;
  /** `ExecuteOptions.actor`. Often a person's name or address: record it only when the application opts in. */
  readonly actor: string | undefined;
  /** `ExecuteOptions.tenant`. Often an e-mail address: record it only when the application opts in. */
  readonly tenant: string | undefined;
  /** The store's `backend` (`fs`, `redis`, …). */
  readonly backend: string | undefined;
  /** Set before `asyncEnd`. */
  outcome: CommandOutcome;
  /** Set before `asyncEnd` for an error or refusal: a short code such as `not_found` or `sensitive`. */
  errorType: string | undefined;
  /** Conditional writes that lost to another writer and were retried. */
  retries: number;
  /** File bytes the command read from the store. */
  bytesRead: number;
  /** File bytes the command wrote to the store. */
  bytesWritten: number;
}

/** The storage calls published on `STORE_CHANNEL`. */
export type StoreOperation =
  | "read"
  | "stat"
  | "list"
  | "readOrList"
  | "readLines"
  | "write"
  | "update"
  | "delete"
  | "rename"
  | "usage";

/** The context object of one storage call on `STORE_CHANNEL`; `error` is set by the channel on failure. */
export interface StoreTrace {
  readonly operation: StoreOperation;
  readonly backend: string | undefined;
  /** The canonical path the call is about (`from` for rename; absent for usage). */
  readonly path: string | undefined;
  /** The command that made the call. */
  readonly parent: CommandTrace;
}

type Channels = { command: TracingChannel<CommandTrace>; store: TracingChannel<StoreTrace> };

// Loaded without an import statement, so that bundlers for the browser never see a Node module.
const channels = ((): Channels | undefined => {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const dc = proc?.getBuiltinModule?.("node:diagnostics_channel") as
      | typeof import("node:diagnostics_channel")
      | undefined;
    if (!dc?.tracingChannel) return undefined;
    return {
      command: dc.tracingChannel<CommandTrace>(COMMAND_CHANNEL),
      store: dc.tracingChannel<StoreTrace>(STORE_CHANNEL),
    };
  } catch {
    return undefined;
  }
})();

/**
 * Whether anyone listens to a tracing channel. Bun's `TracingChannel` has no `hasSubscribers` of its
 * own; its five channels have one each.
 */
const listened = (channel: TracingChannel<object> | undefined): boolean => {
  if (!channel) return false;
  const own = (channel as { hasSubscribers?: unknown }).hasSubscribers;
  if (typeof own === "boolean") return own;
  return [channel.start, channel.end, channel.asyncStart, channel.asyncEnd, channel.error].some(
    (one) => one?.hasSubscribers === true,
  );
};

/** Whether anyone listens to commands: the only check made when nobody does. */
export const tracingCommands = (): boolean => listened(channels?.command);

type TraceOptions = { actor?: string | undefined; tenant?: string | undefined };

/** Runs one command inside the command channel, with its storage calls counted and traced. */
export const traceCommand = <R extends { content: string; isError: boolean }, O extends TraceOptions>(
  store: MemoryStore,
  input: unknown,
  options: O,
  execute: (store: MemoryStore, input: unknown, options: O) => Promise<R>,
): Promise<R> => {
  const { command: tracing, store: storeTracing } = channels as Channels;
  // A store that is not one (or a throwing `backend`) is executeCommand's to report, untraced.
  if (typeof store !== "object" || store === null) return execute(store, input, options);
  let backend: string | undefined;
  try {
    backend = typeof store.backend === "string" ? store.backend : undefined;
  } catch {
    backend = undefined;
  }
  const trace: CommandTrace = {
    command: commandOf(input),
    path: undefined,
    newPath: undefined,
    actor: options.actor,
    tenant: options.tenant,
    backend,
    outcome: "ok",
    errorType: undefined,
    retries: 0,
    bytesRead: 0,
    bytesWritten: 0,
  };
  const observed = observe(store, trace, storeTracing);
  return tracing.tracePromise(async () => {
    const result = await execute(observed, input, options);
    if (result.isError) [trace.outcome, trace.errorType] = classify(result.content);
    // The storage calls named the paths; a command that made none (refused, invalid) needs a look.
    if (trace.path === undefined || (trace.command === "rename" && trace.newPath === undefined)) {
      Object.assign(trace, subjectOf(store, input, trace.command));
    }
    return result;
  }, trace);
};

/** The command the input names; a hostile input names none. */
const commandOf = (input: unknown): CommandName | undefined => {
  try {
    const command = (input as Record<string, unknown> | null)?.["command"];
    return typeof command === "string" && COMMANDS.has(command) ? (command as CommandName) : undefined;
  } catch {
    return undefined;
  }
};

/** The canonical paths the input names; a hostile input names none. */
const subjectOf = (
  store: MemoryStore,
  input: unknown,
  command: CommandName | undefined,
): Pick<CommandTrace, "path" | "newPath"> => {
  try {
    if (command === undefined) return { path: undefined, newPath: undefined };
    const raw = input as Record<string, unknown>;
    const reserved = store.isReservedName?.bind(store);
    const canonical = (value: unknown): string | undefined => {
      const checked = validatePath(value, { isReservedName: reserved, pathLimits: store.pathLimits });
      return checked.ok ? checked.path : undefined;
    };
    return command === "rename"
      ? { path: canonical(raw["old_path"]), newPath: canonical(raw["new_path"]) }
      : { path: canonical(raw["path"]), newPath: undefined };
  } catch {
    return { path: undefined, newPath: undefined };
  }
};

const COMMANDS = new Set<string>(["view", "create", "str_replace", "insert", "delete", "rename"]);
const TRACED = new Set<string>([
  "read",
  "stat",
  "list",
  "readOrList",
  "readLines",
  "write",
  "update",
  "delete",
  "rename",
  "usage",
]);

/**
 * The store as the command sees it while traced: every storage call counted into `trace` and, when
 * someone listens to `STORE_CHANNEL`, published as a child of the command. Methods run on the store
 * itself (a class with private fields refuses a proxy as `this`).
 */
const observe = (
  store: MemoryStore,
  trace: CommandTrace,
  channel: TracingChannel<StoreTrace>,
): MemoryStore => {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      const known = wrapped.get(key);
      if (known !== undefined) return known;
      let wrapper: unknown;
      if (typeof key !== "string" || !TRACED.has(key)) {
        wrapper = value.bind(target);
      } else {
        const method = value as (...args: unknown[]) => Promise<unknown>;
        const operation = key as StoreOperation;
        wrapper = (...args: unknown[]): Promise<unknown> => {
          const path = typeof args[0] === "string" ? args[0] : undefined;
          if (trace.path === undefined && path !== undefined) trace.path = path;
          if (operation === "rename" && typeof args[1] === "string") trace.newPath = args[1];
          const call = () => counted(trace, operation, method, target, args);
          if (!listened(channel)) return call();
          return channel.tracePromise(call, { operation, backend: trace.backend, path, parent: trace });
        };
      }
      wrapped.set(key, wrapper);
      return wrapper;
    },
  });
};

const counted = async (
  trace: CommandTrace,
  operation: StoreOperation,
  method: (...args: unknown[]) => Promise<unknown>,
  target: MemoryStore,
  args: unknown[],
): Promise<unknown> => {
  if (operation === "update") {
    const change = args[1] as (current: Uint8Array) => Uint8Array | null;
    let written = 0;
    args[1] = (current: Uint8Array) => {
      trace.bytesRead += current.byteLength;
      const next = change(current);
      written = next?.byteLength ?? 0;
      return next;
    };
    const found = await method.apply(target, args);
    if (found === true) trace.bytesWritten += written;
    return found;
  }
  if (operation !== "write") {
    const result = (await method.apply(target, args)) as {
      data?: Uint8Array;
      kind?: string;
      file?: { data: Uint8Array };
      text?: string;
    };
    if (operation === "read" && result?.data) trace.bytesRead += result.data.byteLength;
    if (operation === "readOrList" && result?.kind === "file")
      trace.bytesRead += result.file!.data.byteLength;
    if (operation === "readLines" && typeof result?.text === "string")
      trace.bytesRead += utf8Length(result.text);
    return result;
  }
  try {
    const written = await method.apply(target, args);
    trace.bytesWritten += (args[1] as Uint8Array).byteLength;
    return written;
  } catch (error) {
    if (isStoreError(error, "CONFLICT")) trace.retries += 1;
    throw error;
  }
};

// Error results are told apart by the messages of `messages.ts` themselves: each becomes a pattern with
// its arguments as wildcards, tried in this order (the generic storage failure last).
const ANY = "\u0000";
const any = ANY as never;
const KINDS: readonly [string, CommandOutcome, string][] = [
  [msg.sensitiveRefused(any, any, any), "refused", "sensitive"],
  [msg.tooManyFiles(any, any, any), "refused", "quota"],
  [msg.tooManyBytes(any, any, any), "refused", "quota"],
  [msg.tooLarge(any, any, any), "refused", "too_large"],
  [msg.readOnly(any), "refused", "read_only"],
  [msg.notAString(any), "error", "invalid_path"],
  [msg.outside(any), "error", "invalid_path"],
  [msg.notAllowed(any, any), "error", "invalid_path"],
  [msg.notAnObject(), "error", "invalid_input"],
  [msg.unknownCommand(any), "error", "invalid_input"],
  [msg.missingParam(any, any), "error", "invalid_input"],
  [msg.wrongType(any, any), "error", "invalid_input"],
  [msg.notUnicode(any), "error", "invalid_input"],
  [msg.emptyOldStr(), "error", "invalid_input"],
  [msg.viewRangeOnDirectory(), "error", "invalid_input"],
  [msg.viewRangeStart(any, any, any), "error", "invalid_input"],
  [msg.viewRangeEnd(any, any), "error", "invalid_input"],
  [msg.insertLine(any, any), "error", "invalid_input"],
  [msg.deleteRoot(), "error", "invalid_input"],
  [msg.renameRoot(), "error", "invalid_input"],
  [msg.intoItself(any), "error", "invalid_input"],
  [msg.tooManyLines(any), "error", "too_large"],
  [msg.notUtf8(any), "error", "not_utf8"],
  [msg.viewMissing(any), "error", "not_found"],
  [msg.replaceMissing(any), "error", "not_found"],
  [msg.insertMissing(any), "error", "not_found"],
  [msg.deleteMissing(any), "error", "not_found"],
  [msg.renameMissing(any), "error", "not_found"],
  [msg.fileExists(any), "error", "already_exists"],
  [msg.destinationExists(any), "error", "already_exists"],
  [msg.createUnderFile(any, any), "error", "not_a_directory"],
  [msg.renameUnderFile(any, any), "error", "not_a_directory"],
  [msg.noOccurrence(any, any), "error", "no_match"],
  [msg.multipleOccurrences(any, [any]), "error", "multiple_matches"],
  [msg.unexpected(), "error", "unexpected"],
  [msg.storeFailed(any, any, msg.reasonConflict()), "error", "conflict"],
  [msg.storeFailedMaybeApplied(any, any, any), "error", "store_failure"],
  [msg.storeFailed(any, any, any), "error", "store_failure"],
];

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const PATTERNS = KINDS.map(
  ([text, outcome, type]) =>
    [new RegExp(`^${text.split(ANY).map(escapeRegExp).join("[\\s\\S]*")}$`), outcome, type] as const,
);

/** The outcome and error type of an error result. */
export const classify = (content: string): [CommandOutcome, string] => {
  for (const [pattern, outcome, type] of PATTERNS) if (pattern.test(content)) return [outcome, type];
  return ["error", "_OTHER"];
};
