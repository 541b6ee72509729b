/** The dispatcher: raw tool input → parse → validate paths → run against a store → spec-exact result. */
import { type ChangeContext, checkAttribution } from "./actor.js";
import { type ChangeEvent, type ChangeHook, changeOf, emitChange } from "./change.js";
import { traceCommand, tracingCommands } from "./diagnostics.js";
import { type EditOutcome, insertLines, strReplace } from "./edit.js";
import type { NotADirectoryError, QuotaExceededError, StoreFailureError } from "./errors.js";
import { isStoreError, safeReason } from "./failure.js";
import { isImagePath, type ToolImage } from "./image.js";
import { msg } from "./messages.js";
import { mountPolicy } from "./mounts/policy.js";
import { mountRefusal } from "./mounts/refusals.js";
import { type Command, parseCommand } from "./parse.js";
import { validatePath } from "./path.js";
import { checkQuotaOptions, createOwnError, type Quota, type QuotaOptions, quotaFor } from "./quota.js";
import {
  type Guard,
  guardOutcome,
  guardPath,
  resolveGuard,
  type SensitiveOptions,
} from "./sensitive/guard.js";
import type { MemoryStore, Usage } from "./store.js";
import { decodeUtf8, encodeUtf8, utf8Length } from "./text.js";
import { isSameOrInside, ROOT } from "./tree.js";
import { TooManyConflictsError, updateWithRetry } from "./update.js";
import { view } from "./view-command.js";

/**
 * The outcome of one memory tool call: `content` goes to the model, `isError` becomes `is_error`. The view
 * of an image also carries `image`; `content` is then its text-only form (`Here's the image {path}:
 * image/png, {bytes} bytes`) and `toContentBlocks` gives the two blocks the Messages API takes.
 */
export interface ToolResult {
  content: string;
  isError: boolean;
  /** The image a successful view of a `.png`, `.jpg` or `.jpeg` file returned, in base64. */
  image?: ToolImage;
}

export interface ExecuteOptions extends QuotaOptions {
  /** Largest file a command may leave behind, in UTF-8 bytes. Default 1 MiB. */
  maxFileBytes?: number;
  /** Budget for the numbered lines of a file view, in characters. Default 16,000. */
  viewCharLimit?: number;
  /** Largest image file a view returns, in bytes. Default 5 MiB, the Messages API's limit for one image. */
  maxImageBytes?: number;
  /**
   * `create` on an existing file replaces its content (one conditional write) instead of answering
   * `Error: File {path} already exists`. A directory at the path is still that error. Default `false`.
   */
  createOverwrites?: boolean;
  /** Most entries a directory view shows. Default 1,000. */
  listLimit?: number;
  /** How often an edit is retried when another writer changed the file in between. Default 100. */
  conflictRetries?: number;
  /**
   * Called with every error behind an error result that the model sees only as a generic reason: an
   * untyped error thrown by the store (`unexpected storage error`, `connection refused`, ...) or a bug
   * (`unexpected error`). The place for an application to log the cause; what it throws is ignored.
   */
  onUnexpectedError?: (error: unknown) => void;
  /** The sensitive-data guard of SPEC §7: on by default (see `SensitiveOptions`); `false` turns it off. */
  sensitive?: SensitiveOptions | false;
  /** Called after each successful change (see `ChangeHook`: not awaited, its failures are ignored). */
  onChange?: ChangeHook;
  /**
   * Who runs the command (an agent, a user, a token's name): in change events, in the `ChangeContext`
   * the store receives (so `@mem/history` records it) and, when the application opts in, in traces.
   */
  actor?: string;
  /** The tenant the store is confined to, for change events and traces (a label; it scopes nothing). */
  tenant?: string;
}

type Limits = Required<
  Omit<
    ExecuteOptions,
    | keyof QuotaOptions
    | "onUnexpectedError"
    | "sensitive"
    | "onChange"
    | "createOverwrites"
    | "actor"
    | "tenant"
  >
>;
/** `change` collects the sizes a command saw, for its `onChange` event; `context` goes with each change. */
type Settings = Limits & {
  quota: Quota | null;
  guard: Guard | null;
  change: Partial<ChangeEvent>;
  createOverwrites: boolean;
  context: ChangeContext | undefined;
};

/** The default `maxFileBytes`: the largest file a command may leave behind, 1 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

const DEFAULTS: Limits = {
  maxFileBytes: DEFAULT_MAX_FILE_BYTES,
  viewCharLimit: 16_000,
  maxImageBytes: 5 * 1024 * 1024,
  listLimit: 1000,
  conflictRetries: 100,
};

/** An option of `Limits`: a number from 0 up, or else the default. */
const limitOf = (value: unknown, fallback: number): number =>
  typeof value === "number" && value >= 0 ? value : fallback;

const ok = (content: string): ToolResult => ({ content, isError: false });
const fail = (content: string): ToolResult => ({ content, isError: true });

/**
 * Runs one memory tool call against a store. Never throws for any input or storage failure: they become
 * the error results of SPEC.md. Quota options (`maxFiles`, `maxTotalBytes`) come from the application: an
 * invalid one rejects with a `TypeError` naming it before anything is read or written.
 *
 * @example
 * ```ts
 * import { executeCommand, InMemoryStore } from "@mem/core";
 * const store = new InMemoryStore();
 * await executeCommand(store, { command: "create", path: "/memories/notes.md", file_text: "# Notes\n" });
 * const { content } = await executeCommand(store, { command: "view", path: "/memories/notes.md" });
 * // "Here's the content of /memories/notes.md with line numbers:\n     1\t# Notes"
 * ```
 */
export async function executeCommand(
  store: MemoryStore,
  input: unknown,
  options: ExecuteOptions = {},
): Promise<ToolResult> {
  checkQuotaOptions(options);
  checkAttribution(options);
  if (tracingCommands()) return traceCommand(store, input, options, execute);
  return execute(store, input, options);
}

async function execute(store: MemoryStore, input: unknown, options: ExecuteOptions): Promise<ToolResult> {
  try {
    return await dispatch(store, input, options);
  } catch (error) {
    // Only input that is not plain JSON (a throwing getter, a hostile proxy) or a broken options
    // object gets here; store failures are handled below, with the command and path named.
    notify(options, error);
    return fail(msg.unexpected());
  }
}

const TYPED = [
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "NOT_A_DIRECTORY",
  "CONFLICT",
  "STORE_FAILURE",
  "ERASING",
] as const;

/** Hands an error the model only sees as a generic reason to the application's hook, if any. */
const notify = (options: ExecuteOptions, error: unknown): void => {
  if (TYPED.some((code) => isStoreError(error, code))) return;
  try {
    options.onUnexpectedError?.(error);
  } catch {
    // A failing hook must not turn into a thrown tool call.
  }
};

async function dispatch(store: MemoryStore, input: unknown, options: ExecuteOptions): Promise<ToolResult> {
  // Every field written here, in one literal: spreading DEFAULTS and adding fields afterwards left V8 an
  // object of many shapes, about a quarter of the engine's time for a view.
  const settings: Settings = {
    maxFileBytes: limitOf(options.maxFileBytes, DEFAULTS.maxFileBytes),
    viewCharLimit: limitOf(options.viewCharLimit, DEFAULTS.viewCharLimit),
    maxImageBytes: limitOf(options.maxImageBytes, DEFAULTS.maxImageBytes),
    listLimit: limitOf(options.listLimit, DEFAULTS.listLimit),
    conflictRetries: limitOf(options.conflictRetries, DEFAULTS.conflictRetries),
    quota: quotaFor(store, options),
    guard: resolveGuard(options.sensitive),
    change: {},
    createOverwrites: options.createOverwrites === true,
    context: undefined,
  };
  const storeMax = store.maxFileBytes;
  if (typeof storeMax === "number" && storeMax >= 0 && storeMax < settings.maxFileBytes)
    settings.maxFileBytes = storeMax;

  const parsed = parseCommand(input);
  if (!parsed.ok) return fail(parsed.error);
  const command = parsed.command;
  const context = { command: command.command, actor: options.actor };
  settings.context = context;
  // The canonical path named in a storage failure; only a throwing `isReservedName` fails before it is known.
  let subject = msg.unvalidatedPath();
  try {
    const reserved = store.isReservedName?.bind(store);
    if (command.command === "rename") {
      const from = validatePath(command.old_path, {
        param: "old_path",
        isReservedName: reserved,
        pathLimits: store.pathLimits,
      });
      if (!from.ok) return fail(from.error);
      subject = from.path;
      const to = validatePath(command.new_path, {
        param: "new_path",
        isReservedName: reserved,
        pathLimits: store.pathLimits,
      });
      if (!to.ok) return fail(to.error);
      const mounted = mountRefusal(store, "rename", [from.path, to.path]);
      if (mounted) return fail(mounted);
      Object.assign(settings, mountPolicy(store, to.path, settings));
      const secret = guardPath(settings.guard, to.path);
      if (secret) return fail(secret);
      const renamed = await runRename(store, from.path, to.path, context);
      if (!renamed.isError && options.onChange)
        emitChange(
          options.onChange,
          changeOf(options, { command: "rename", path: from.path, newPath: to.path }),
        );
      return renamed;
    }
    const checked = validatePath(command.path, { isReservedName: reserved, pathLimits: store.pathLimits });
    if (!checked.ok) return fail(checked.error);
    subject = checked.path;
    const mounted = mountRefusal(store, command.command, [checked.path]);
    if (mounted) return fail(mounted);
    if (command.command !== "view") Object.assign(settings, mountPolicy(store, checked.path, settings));
    const secret = command.command === "create" ? guardPath(settings.guard, checked.path) : null;
    if (secret) return fail(secret);
    const result = await run(store, { ...command, path: checked.path }, settings);
    if (!result.isError && command.command !== "view" && options.onChange) {
      const change = { command: command.command, path: checked.path, ...settings.change };
      emitChange(options.onChange, changeOf(options, change));
    }
    return result;
  } catch (error) {
    notify(options, error);
    if (isStoreError(error, "ERASING")) return fail(msg.erasing());
    const uncertain =
      isStoreError(error, "STORE_FAILURE") && (error as StoreFailureError).mayBeApplied === true;
    const report = uncertain ? msg.storeFailedMaybeApplied : msg.storeFailed;
    return fail(report(command.command, subject, safeReason(error)));
  }
}

type PathCommand = Exclude<Command, { command: "rename" }>;

async function run(store: MemoryStore, command: PathCommand, settings: Settings): Promise<ToolResult> {
  const { path } = command;
  switch (command.command) {
    case "view":
      return view(store, path, command.view_range, settings);
    case "create":
      return create(store, path, command.file_text, settings);
    case "str_replace":
      return edit(store, "str_replace", path, msg.replaceMissing(path), settings, (text) =>
        strReplace(path, text, command.old_str, command.new_str),
      );
    case "insert":
      return edit(store, "insert", path, msg.insertMissing(path), settings, (text) =>
        insertLines(path, text, command.insert_line, command.insert_text),
      );
    case "delete":
      if (path === ROOT) return fail(msg.deleteRoot());
      settings.change = { sizeAfter: null };
      return (await store.delete(path, settings.context))
        ? ok(msg.deleted(path))
        : fail(msg.deleteMissing(path));
  }
}

async function create(
  store: MemoryStore,
  path: string,
  text: string,
  settings: Settings,
): Promise<ToolResult> {
  if (path === ROOT) return fail(msg.fileExists(path));
  const step = checkWrite(path, { ok: true, text, reply: msg.created(path) }, settings);
  if (!step.bytes) return step.result;
  const { quota } = settings;
  const bytes = step.bytes;
  const atomic = quota && store.writeWithinQuota ? store.writeWithinQuota.bind(store) : undefined;
  if (quota && !atomic) {
    const refused = await quota.create(path, bytes.length);
    if (refused) {
      const own = await createOwnError(store, path);
      // With createOverwrites, an existing file is no error: the write is an edit, measured as one.
      const overwrite = settings.createOverwrites && own === msg.fileExists(path);
      if (!overwrite || (await store.stat(path))?.kind !== "file") return fail(own ?? refused);
      return overwriteFile(store, path, bytes, step.result, settings);
    }
  }
  try {
    if (quota && atomic) await atomic(path, bytes, { ifAbsent: true }, quota.limits);
    else await store.write(path, bytes, { ifAbsent: true }, settings.context);
    settings.change = { sizeBefore: null, sizeAfter: bytes.length };
    return step.result;
  } catch (error) {
    if (quota && isStoreError(error, "QUOTA_EXCEEDED")) {
      const refused = quota.createRefusal(path, (error as QuotaExceededError).usage, bytes.length);
      if (refused) return fail(refused);
    }
    if (isStoreError(error, "ALREADY_EXISTS")) {
      if (!settings.createOverwrites) return fail(msg.fileExists(path));
      return overwriteFile(store, path, bytes, step.result, settings);
    }
    if (isStoreError(error, "NOT_A_DIRECTORY")) {
      return fail(msg.createUnderFile(path, (error as NotADirectoryError).ancestor));
    }
    throw error;
  }
}

/**
 * `create` with `createOverwrites` on a path that is taken: a conditional write over the file's current
 * version (through `update` where the store has it), retried when another writer won; created afresh when
 * the file went away in between; `Error: File {path} already exists` for a directory.
 */
async function overwriteFile(
  store: MemoryStore,
  path: string,
  bytes: Uint8Array,
  result: ToolResult,
  settings: Settings,
): Promise<ToolResult> {
  const usage = settings.quota?.limitsBytes ? await settings.quota.usage() : undefined;
  const refusal = (before: number): string | null =>
    usage ? (settings.quota?.edit(path, usage, before, bytes.length) ?? null) : null;
  if (store.update) {
    const seen: { before: number; refused: string | null } = { before: 0, refused: null };
    const found = await store.update(
      path,
      (current) => {
        seen.before = current.length;
        seen.refused = refusal(current.length);
        return seen.refused ? null : bytes;
      },
      settings.context,
    );
    if (found) {
      if (seen.refused) return fail(seen.refused);
      settings.change = { sizeBefore: seen.before, sizeAfter: bytes.length };
      return result;
    }
    // No file there: most often a directory, told without another read.
    if ((await store.stat(path))?.kind === "directory") return fail(msg.fileExists(path));
  }
  // No native update, or the file went away since the create found it: read → conditional write, or a
  // new file again where nothing is (a directory there was already ruled out above on the first attempt).
  let statted = store.update !== undefined;
  let stopped: ToolResult | null = null;
  let before: number | null = null;
  const cap = Math.ceil(settings.conflictRetries) + 1;
  try {
    const done = await updateWithRetry(
      store,
      path,
      async (file) => {
        before = file ? file.data.length : null;
        stopped = file
          ? nullable(refusal(file.data.length))
          : await createRefusal(store, path, bytes, settings, statted);
        statted = false;
        return stopped ? null : bytes;
      },
      { attempts: Number.isSafeInteger(cap) ? cap : Number.POSITIVE_INFINITY, context: settings.context },
    );
    if (!done.written) return stopped ?? result;
    settings.change = { sizeBefore: before, sizeAfter: bytes.length };
    return result;
  } catch (error) {
    if (isStoreError(error, "NOT_A_DIRECTORY")) {
      return fail(msg.createUnderFile(path, (error as NotADirectoryError).ancestor));
    }
    if (isStoreError(error, "ALREADY_EXISTS")) return fail(msg.fileExists(path));
    if (error instanceof TooManyConflictsError) {
      return fail(msg.storeFailed("create", path, msg.reasonConflict()));
    }
    throw error;
  }
}

const nullable = (refused: string | null): ToolResult | null => (refused ? fail(refused) : null);

/** Why nothing may be created where `overwriteFile` found no file: a directory, or the quota. */
const createRefusal = async (
  store: MemoryStore,
  path: string,
  bytes: Uint8Array,
  settings: Settings,
  statted: boolean,
): Promise<ToolResult | null> => {
  if (!statted && (await store.stat(path))?.kind === "directory") return fail(msg.fileExists(path));
  return nullable((await settings.quota?.create(path, bytes.length)) ?? null);
};

type EditStep = { result: ToolResult; bytes?: Uint8Array };

/** The pure part of an edit: decode, transform, check the size of what would be stored. */
const applyEdit = (
  path: string,
  data: Uint8Array,
  settings: Settings,
  usage: Usage | undefined,
  transform: (text: string) => EditOutcome,
): EditStep => {
  // An image is not text, whatever its bytes (SPEC §4 "Image").
  const text = isImagePath(path) ? null : decodeUtf8(data);
  if (text === null) {
    // Bytes too many for one string fail to decode too; their size is the honest reason.
    const overLimit = data.length > settings.maxFileBytes && !isImagePath(path);
    const error = overLimit ? msg.fileOverLimit(path, data.length, settings.maxFileBytes) : msg.notUtf8(path);
    return { result: fail(error) };
  }
  const outcome = transform(text);
  if (!outcome.ok) return { result: fail(outcome.error) };
  const step = checkWrite(path, outcome, settings);
  if (!step.bytes) return step;
  const refused = usage && settings.quota?.edit(path, usage, data.length, step.bytes.length);
  if (refused) return { result: fail(refused) };
  settings.change = { sizeBefore: data.length, sizeAfter: step.bytes.length };
  return step;
};

/**
 * `maxFileBytes` first, measured before encoding (text far over the limit is refused without being copied,
 * and the limit bounds the guard's work), then the guard, then the size of a redacted text.
 */
const checkWrite = (path: string, outcome: EditOutcome & { ok: true }, settings: Settings): EditStep => {
  const size = utf8Length(outcome.text);
  if (size > settings.maxFileBytes) return { result: fail(msg.tooLarge(path, size, settings.maxFileBytes)) };
  const guarded = guardOutcome(settings.guard, path, outcome);
  if (!guarded.ok) return { result: fail(guarded.error) };
  const bytes = encodeUtf8(guarded.text);
  if (bytes.length > settings.maxFileBytes) {
    return { result: fail(msg.tooLarge(path, bytes.length, settings.maxFileBytes)) };
  }
  return { result: ok(guarded.reply), bytes };
};

/**
 * Runs an edit through the store's native atomic `update` when it has one; otherwise read → transform →
 * conditional write, retried with jittered backoff when another writer won.
 */
async function edit(
  store: MemoryStore,
  operation: string,
  path: string,
  missing: string,
  settings: Settings,
  transform: (text: string) => EditOutcome,
): Promise<ToolResult> {
  if (path === ROOT) return fail(missing);
  const { quota } = settings;
  // A store that checks quotas in the write itself gets the conditional-write loop below with the
  // limits, and no usage read first: concurrent editors then never overshoot them.
  const atomic =
    quota?.limitsBytes && store.writeWithinQuota ? store.writeWithinQuota.bind(store) : undefined;
  // Taken before the edit: concurrent writers may each fit alone and overshoot together (SPEC §7). Asked
  // together with the first read, so a store without `update` pays no extra wait for it.
  const pending = quota?.limitsBytes && !atomic ? quota.usage() : undefined;
  if (store.update && !atomic) {
    const usage = await pending;
    let step: EditStep = { result: fail(missing) };
    const found = await store.update(
      path,
      (data) => {
        step = applyEdit(path, data, settings, usage, transform);
        return step.bytes ?? null;
      },
      settings.context,
    );
    return found ? step.result : fail(missing);
  }
  // Awaited after the first read, so it costs no extra wait; a failed read leaves it unobserved.
  pending?.catch(() => {});
  let usage: Usage | undefined;
  let seen = 0;
  let step: EditStep = { result: fail(missing) };
  const cap = Math.ceil(settings.conflictRetries) + 1;
  try {
    await updateWithRetry(
      store,
      path,
      async (file, attempt) => {
        if (attempt === 0) usage = await pending;
        if (!file) {
          step = { result: fail(missing) };
          return null;
        }
        seen = file.data.length;
        step = applyEdit(path, file.data, settings, usage, transform);
        return step.bytes ?? null;
      },
      {
        attempts: Number.isSafeInteger(cap) ? cap : Number.POSITIVE_INFINITY,
        write:
          quota && atomic
            ? (p, data, condition) => atomic(p, data, condition, quota.limits)
            : (p, data, condition) => store.write(p, data, condition, settings.context),
      },
    );
    return step.result;
  } catch (error) {
    if (quota && step.bytes && isStoreError(error, "QUOTA_EXCEEDED")) {
      const taken = (error as QuotaExceededError).usage;
      const refused = quota.edit(path, taken, seen, step.bytes.length);
      if (refused) return fail(refused);
    }
    if (error instanceof TooManyConflictsError) {
      return fail(msg.storeFailed(operation, path, msg.reasonConflict()));
    }
    throw error;
  }
}

async function runRename(
  store: MemoryStore,
  from: string,
  to: string,
  context: ChangeContext,
): Promise<ToolResult> {
  if (from === ROOT || to === ROOT) return fail(msg.renameRoot());
  // The store checks existence itself, in the spec's order; only a move into itself needs a look first,
  // because an existing destination is reported before it.
  if (isSameOrInside(to, from)) {
    if (!(await store.stat(from))) return fail(msg.renameMissing(from));
    return fail((await store.stat(to)) ? msg.destinationExists(to) : msg.intoItself(from));
  }
  try {
    await store.rename(from, to, context);
    return ok(msg.renamed(from, to));
  } catch (error) {
    if (isStoreError(error, "NOT_FOUND")) return fail(msg.renameMissing(from));
    if (isStoreError(error, "ALREADY_EXISTS")) return fail(msg.destinationExists(to));
    if (isStoreError(error, "NOT_A_DIRECTORY")) {
      return fail(msg.renameUnderFile(to, (error as NotADirectoryError).ancestor));
    }
    throw error;
  }
}
