/**
 * The audit view's store side: `changes()` and `rollback()` of `@mem/history`'s `HistoryStore`, matched
 * structurally (a method of each name), so the console works with any store that offers that shape.
 */
import type { MemoryStore } from "@mem/core";

/** One change of the log, as the page receives it. */
export interface ChangeRow {
  id: string;
  time: number;
  actor: string | null;
  command: string;
  path: string;
  newPath?: string;
  version: string | null;
}

export interface ChangeQuery {
  since?: number;
  until?: number;
  tenant?: string;
  by?: string;
  path?: string;
  after?: string;
  limit?: number;
}

export type RollbackRequest =
  | { to: number; by?: string; tenant?: string; actor?: string }
  | { undo: string; tenant?: string; actor?: string };

export interface RollbackOutcome {
  id?: string;
  restored: string[];
  deleted: string[];
  skipped: string[];
}

/** A store with a change log. */
export interface ChangeLogStore {
  changes(options: ChangeQuery): Promise<{ changes: readonly unknown[]; next?: string }>;
  rollback(options: RollbackRequest): Promise<RollbackOutcome>;
}

export const hasChangeLog = (store: MemoryStore): store is MemoryStore & ChangeLogStore => {
  const s = store as Partial<ChangeLogStore>;
  return typeof s.changes === "function" && typeof s.rollback === "function";
};

const text = (value: unknown): value is string => typeof value === "string";

/** The rows of a page of `changes()`, fields checked: an entry that is not a change is left out. */
export const changeRowsOf = (page: { changes: readonly unknown[]; next?: string }) => {
  const changes: ChangeRow[] = [];
  for (const raw of page.changes ?? []) {
    const c = raw as Partial<ChangeRow> | null;
    if (!c || !text(c.id) || typeof c.time !== "number" || !text(c.command) || !text(c.path)) continue;
    changes.push({
      id: c.id,
      time: c.time,
      actor: text(c.actor) ? c.actor : null,
      command: c.command,
      path: c.path,
      ...(text(c.newPath) ? { newPath: c.newPath } : {}),
      version: text(c.version) ? c.version : null,
    });
  }
  return text(page.next) && page.next !== "" ? { changes, next: page.next } : { changes };
};

/** A page's strings of the filters: times in ms or ISO 8601, names as given; a `TypeError` otherwise. */
export const timeOf = (raw: string | null, name: string): number | undefined => {
  if (raw === null || raw === "") return undefined;
  const time = /^\d{1,15}$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(time)) throw new TypeError(`${name} must be a time (ms since the epoch or ISO 8601)`);
  return time;
};
