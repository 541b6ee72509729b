/**
 * The live feed: changes this server made (restores) as they happen, and changes by anyone else found
 * by polling the listing of `/memories` two levels deep and comparing sizes. The poll cannot see an
 * edit that keeps a file's size, nor anything deeper than two levels except as a folder's size change.
 */
import { isListedName, type MemoryStore, nameOf, ROOT } from "@mem/core";

export interface LiveChange {
  readonly kind: "added" | "removed" | "changed" | "restored";
  readonly path: string;
  readonly size?: number;
  readonly entry: "file" | "directory";
  readonly time: number;
  readonly actor?: string;
}

type Snapshot = Map<string, { size: number; kind: "file" | "directory" }>;

const POLL_LIMIT = 2000;

const snapshot = async (store: MemoryStore): Promise<Snapshot> => {
  const listing = await store.list(ROOT, 2, { limit: POLL_LIMIT });
  const seen: Snapshot = new Map();
  for (const e of listing?.entries ?? []) {
    if (isListedName(nameOf(e.path))) seen.set(e.path, { size: e.size, kind: e.kind });
  }
  return seen;
};

/** What changed between two snapshots. */
export const compare = (before: Snapshot, after: Snapshot, time: number): LiveChange[] => {
  const changes: LiveChange[] = [];
  for (const [path, now] of after) {
    const was = before.get(path);
    if (!was) changes.push({ kind: "added", path, size: now.size, entry: now.kind, time });
    else if (was.size !== now.size)
      changes.push({ kind: "changed", path, size: now.size, entry: now.kind, time });
  }
  for (const [path, was] of before) {
    if (!after.has(path)) changes.push({ kind: "removed", path, entry: was.kind, time });
  }
  return changes;
};

/**
 * Polls `store` every `intervalMs` until `stop()`; `emit` gets each change found. Resolves once the first
 * listing is taken: changes from then on are reported.
 */
export const pollChanges = async (
  store: MemoryStore,
  intervalMs: number,
  emit: (change: LiveChange) => void,
): Promise<{ stop(): void }> => {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let last: Snapshot | undefined;
  const tick = async () => {
    try {
      const now = await snapshot(store);
      if (last && !stopped) for (const change of compare(last, now, Date.now())) emit(change);
      last = now;
    } catch {
      // A failed poll is tried again at the next tick.
    }
    if (!stopped) timer = setTimeout(tick, intervalMs);
  };
  last = await snapshot(store).catch(() => undefined);
  timer = setTimeout(tick, intervalMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
};
