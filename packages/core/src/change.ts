/**
 * The change feed: one `MemoryChange` per change, the same shape from `executeCommand`'s `onChange`,
 * `@mem/history`'s events and the MCP server.
 */
import type { ChangeContext } from "./actor.js";

/** One successful change. Sizes are UTF-8 byte counts; the content itself is never part of the event. */
export interface MemoryChange {
  /**
   * The tool command that made the change. A store that sees only writes (`@mem/history`) says `edit`
   * for a write over an earlier file, and `restore` for its own restores.
   */
  readonly command: "create" | "str_replace" | "insert" | "delete" | "rename" | "edit" | "restore";
  /** The canonical path; for `rename`, the old path. */
  readonly path: string;
  /** `rename` only: the canonical new path. */
  readonly newPath?: string;
  /** The tenant whose memory changed, when known (`ExecuteOptions.tenant`, a scoped store). */
  readonly tenant?: string;
  /** Who made the change (`ExecuteOptions.actor`: an agent, a user, a token's name), when known. */
  readonly actor?: string;
  /** When the change was applied, in milliseconds since the epoch. */
  readonly time: number;
  /** UTF-8 bytes the change wrote: the new content's size; 0 for delete and rename. */
  readonly bytes: number;
  /** The file's size before the command; `null` when nothing was there (create). Absent when not read. */
  readonly sizeBefore?: number | null;
  /** The file's size after the command; `null` when it is gone (delete). Absent for rename. */
  readonly sizeAfter?: number | null;
}

/** @deprecated The former name of `MemoryChange`. */
export type ChangeEvent = MemoryChange;

/**
 * Called after each successful change, once the store has applied it. It is not awaited: a slow hook
 * never delays the tool result, and a hook that throws or rejects never changes it.
 */
export type ChangeHook = (change: MemoryChange) => void | Promise<void>;

/** The change event of a command that succeeded: the sizes it saw, stamped with who, whose and when. */
export const changeOf = (
  context: ChangeContext & { readonly tenant?: string | undefined },
  change: Pick<MemoryChange, "command" | "path"> &
    Partial<Pick<MemoryChange, "newPath" | "sizeBefore" | "sizeAfter">>,
): MemoryChange => ({
  ...change,
  ...(context.tenant !== undefined ? { tenant: context.tenant } : {}),
  ...(context.actor !== undefined ? { actor: context.actor } : {}),
  time: Date.now(),
  bytes: typeof change.sizeAfter === "number" && change.command !== "rename" ? change.sizeAfter : 0,
});

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
