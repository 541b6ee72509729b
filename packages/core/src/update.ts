/** The one read → conditional write → retry loop every store, wrapper and tool builds on. */
import type { ChangeContext } from "./actor.js";
import { StoreFailureError } from "./errors.js";
import { isStoreError } from "./failure.js";
import { msg } from "./messages.js";
import { backoffDelay } from "./retry.js";
import type { FileData, MemoryStore, Version, WriteCondition } from "./store.js";

/** Conditional writes `updateWithRetry` tries before it gives up, unless told otherwise. */
export const DEFAULT_UPDATE_ATTEMPTS = 50;

/**
 * What `change` decides from the current file (`null` when nothing is there): the bytes to write, or
 * `null` to stop without writing. May be async; it runs again, on a fresh read, after every lost race.
 */
export type UpdateChange = (
  current: FileData | null,
  attempt: number,
) => Uint8Array | null | Promise<Uint8Array | null>;

export interface UpdateOptions {
  /** Most conditional writes tried (a positive integer, or `Infinity`). Default 50. */
  attempts?: number;
  /**
   * The wait before each retry: full jitter over `baseMs · 2^retry`, capped at `capMs` (defaults 1 and
   * 100 ms, core's own). `false` retries at once.
   */
  backoff?: { baseMs?: number; capMs?: number } | false;
  /** Stops between attempts (and during a backoff wait), rejecting with `signal.reason`. */
  signal?: AbortSignal | undefined;
  /** Passed to `store.write`: which command, and which actor, asked. */
  context?: ChangeContext | undefined;
  /** Writes in place of `store.write` (core passes `writeWithinQuota` this way). */
  write?: (path: string, data: Uint8Array, condition: WriteCondition) => Promise<{ version: Version }>;
}

/** How an update ended when it did not throw. */
export type UpdateResult =
  | { written: true; version: Version; attempts: number }
  | { written: false; attempts: number };

/** What `updateWithRetry` needs of a store; `stat`, when there, tells a directory from a race. */
export type UpdatableStore = Pick<MemoryStore, "read" | "write"> & Partial<Pick<MemoryStore, "stat">>;

/**
 * Every attempt of an update lost its race to another writer; nothing was written to `path`. A
 * `StoreFailureError` (code `STORE_FAILURE`) with the reason `too many concurrent updates of {path}`.
 * Test for it with `instanceof`: it comes from the caller's own copy of core, never from the store.
 */
export class TooManyConflictsError extends StoreFailureError {
  constructor(
    readonly path: string,
    readonly attempts: number,
  ) {
    super(msg.reasonTooManyConflicts(path));
    this.name = "TooManyConflictsError";
  }
}

const checkAttempts = (attempts: unknown): number => {
  if (attempts === undefined) return DEFAULT_UPDATE_ATTEMPTS;
  const ok =
    attempts === Number.POSITIVE_INFINITY ||
    (typeof attempts === "number" && Number.isSafeInteger(attempts) && attempts >= 1);
  if (!ok) throw new TypeError('updateWithRetry: option "attempts" must be a positive integer or Infinity');
  return attempts as number;
};

const wait = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = (): void => {
      signal?.removeEventListener("abort", stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });

/**
 * Reads the file at `path`, asks `change` what to write, and writes it on the condition that nothing
 * changed in between (`ifVersion` of what was read, or `ifAbsent` when nothing was there). A write that
 * lost its race (`ConflictError`, or `AlreadyExistsError` after an absent read) is tried again on a fresh
 * read after a jittered backoff; every other error is thrown as it is, and so is `AlreadyExistsError` when
 * a directory holds `path`. Resolves `{ written: true, version }` after a write, `{ written: false }` when
 * `change` returned `null`; throws `TooManyConflictsError` when `attempts` writes all lost.
 *
 * @example
 * ```ts
 * await updateWithRetry(store, "/memories/count", (current) => {
 *   const n = current ? Number(new TextDecoder().decode(current.data)) : 0;
 *   return new TextEncoder().encode(String(n + 1));
 * });
 * ```
 */
export async function updateWithRetry(
  store: UpdatableStore,
  path: string,
  change: UpdateChange,
  options: UpdateOptions = {},
): Promise<UpdateResult> {
  const attempts = checkAttempts(options.attempts);
  const { signal, backoff, context } = options;
  const write =
    options.write ??
    ((p: string, data: Uint8Array, condition: WriteCondition) => store.write(p, data, condition, context));
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    const current = await store.read(path);
    const next = await change(current, attempt);
    if (next === null) return { written: false, attempts: attempt + 1 };
    const condition: WriteCondition = current ? { ifVersion: current.version } : { ifAbsent: true };
    try {
      const { version } = await write(path, next, condition);
      return { written: true, version, attempts: attempt + 1 };
    } catch (error) {
      const raced = current ? isStoreError(error, "CONFLICT") : isStoreError(error, "ALREADY_EXISTS");
      if (!raced) throw error;
      // A directory never goes away by waiting: its `AlreadyExistsError` is the answer.
      if (!current && (await store.stat?.(path))?.kind === "directory") throw error;
    }
    if (attempt + 1 >= attempts) throw new TooManyConflictsError(path, attempt + 1);
    if (backoff !== false) await wait(backoffDelay(attempt, backoff?.baseMs, backoff?.capMs), signal);
  }
}
