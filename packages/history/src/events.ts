/** The change feed of `HistoryStore`. */
import type { MemoryChange } from "@mem/core";

/**
 * One change that reached the store: a `MemoryChange` (with `actor` when the command named one), plus
 * the kept version. Sizes are byte counts; `content` only with `includeContent`.
 */
export interface HistoryEvent extends MemoryChange {
  /** `create` and `edit` are writes without and with an earlier file; `restore` is `HistoryStore.restore`. */
  readonly command: "create" | "edit" | "delete" | "rename" | "restore";
  /** The file's path (for `rename`, its old path). Directory deletes and renames give one event per file. */
  readonly path: string;
  /** `rename` only: the file's new path. */
  readonly newPath?: string;
  /** The tenant of a store made by `scope(tenant)`. */
  readonly tenant?: string;
  /** Size before the change; `null` when no file was there. */
  readonly sizeBefore: number | null;
  /** Size after the change; `null` when the file is gone. */
  readonly sizeAfter: number | null;
  /** The id under which the content before the change was kept (absent for `create`). */
  readonly versionId?: string;
  /** `restore` only: the version that was restored. */
  readonly restoredFrom?: string;
  /** The file's content after the change, when the store was made with `includeContent: true`. */
  readonly content?: Uint8Array;
}

/**
 * A kept version: its id, when it was kept (ms since the epoch) and its size in bytes; and, for a version
 * kept by a change made through `executeCommand`, the command that replaced it and that command's actor.
 */
export interface VersionInfo {
  readonly id: string;
  readonly time: number;
  readonly size: number;
  /** The tool command whose change kept this version (`str_replace`, `delete`, …), when known. */
  readonly command?: string;
  /** Who made that change (`ExecuteOptions.actor`), when known. */
  readonly actor?: string;
  /**
   * Set when the version was redacted (`HistoryStore.redact`): its content is gone (`size` is 0) and only
   * this tombstone is left: when it was redacted (ms since the epoch) and by whom, when named.
   */
  readonly redacted?: { readonly time: number; readonly by?: string };
}
