/** The `onChange` hook of `executeCommand`: one event after each successful change, for audit logs. */

/** One successful change. Sizes are UTF-8 byte counts; the content itself is never part of the event. */
export interface ChangeEvent {
  readonly command: "create" | "str_replace" | "insert" | "delete" | "rename";
  /** The canonical path; for `rename`, the old path. */
  readonly path: string;
  /** `rename` only: the canonical new path. */
  readonly newPath?: string;
  /** The file's size before the command; `null` when nothing was there (create). Absent when core did not read it. */
  readonly sizeBefore?: number | null;
  /** The file's size after the command; `null` when it is gone (delete). Absent for rename. */
  readonly sizeAfter?: number | null;
}

/**
 * Called after each successful change, once the store has applied it. It is not awaited: a slow hook
 * never delays the tool result, and a hook that throws or rejects never changes it.
 */
export type ChangeHook = (change: ChangeEvent) => void | Promise<void>;

/**
 * Calls a change hook without awaiting it, ignoring what it throws or rejects with (for wrappers'
 * change feeds too).
 */
export const emitChange = <E>(hook: ((change: E) => void | Promise<void>) | undefined, change: E): void => {
  if (!hook) return;
  try {
    const pending = hook(change);
    if (pending && typeof pending.then === "function") pending.then(undefined, () => {});
  } catch {
    // The change is applied; a failing audit hook must not turn it into an error result.
  }
};
