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

/** Why a stream was refused: the server's limit of open streams is reached. */
export class TooManyStreams extends Error {}

interface Poller {
  readonly viewers: Set<(change: LiveChange) => void>;
  /** Settles once the first listing is taken (or failed). */
  readonly ready: Promise<void>;
  stop(): void;
}

/**
 * The live feeds of one server: one poller per store (tenant), shared by all its viewers, started by the
 * first and stopped when the last leaves, and at most `maxStreams` viewers in all.
 */
export class LiveHub {
  readonly #pollers = new Map<MemoryStore, Poller>();
  readonly #intervalMs: number;
  readonly #maxStreams: number;
  #streams = 0;

  constructor(intervalMs: number, maxStreams: number) {
    this.#intervalMs = intervalMs;
    this.#maxStreams = maxStreams;
  }

  /** Open streams, and pollers running (one per store watched). */
  get counts(): { streams: number; pollers: number } {
    return { streams: this.#streams, pollers: this.#pollers.size };
  }

  /**
   * Adds a viewer of `store`; `leave()` removes it (once). Throws `TooManyStreams` at the limit. `ready`
   * settles once the shared poller holds its first listing: changes from then on are reported.
   */
  join(
    store: MemoryStore,
    viewer: (change: LiveChange) => void,
  ): { leave: () => void; ready: Promise<void> } {
    if (this.#streams >= this.#maxStreams) {
      throw new TooManyStreams(
        `too many live streams: this console serves at most ${this.#maxStreams} at once`,
      );
    }
    let poller = this.#pollers.get(store);
    if (!poller) {
      const viewers = new Set<(change: LiveChange) => void>();
      const handle = startPoller(store, this.#intervalMs, (change) => {
        for (const each of viewers) each(change);
      });
      poller = { viewers, ready: handle.ready, stop: handle.stop };
      this.#pollers.set(store, poller);
    }
    const joined = poller;
    joined.viewers.add(viewer);
    this.#streams++;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.#streams--;
      joined.viewers.delete(viewer);
      if (joined.viewers.size === 0) {
        joined.stop();
        if (this.#pollers.get(store) === joined) this.#pollers.delete(store);
      }
    };
    return { leave, ready: joined.ready };
  }

  /** Tells the viewers of `store` about a change this server made. */
  announce(store: MemoryStore, change: LiveChange): void {
    for (const viewer of this.#pollers.get(store)?.viewers ?? []) viewer(change);
  }

  /** Stops every poller (the server is closing). */
  close(): void {
    for (const poller of this.#pollers.values()) poller.stop();
    this.#pollers.clear();
  }
}

/**
 * Polls `store` every `intervalMs` until `stop()`; `emit` gets each change found after the first listing.
 * Nothing runs after `stop()`, even a listing in flight when it was called.
 */
const startPoller = (
  store: MemoryStore,
  intervalMs: number,
  emit: (change: LiveChange) => void,
): { stop(): void; ready: Promise<void> } => {
  let stopped = false;
  let started!: () => void;
  const ready = new Promise<void>((resolve) => {
    started = resolve;
  });
  let timer: NodeJS.Timeout | undefined;
  let last: Snapshot | undefined;
  const tick = async () => {
    try {
      const now = await snapshot(store);
      if (stopped) return;
      if (last) for (const change of compare(last, now, Date.now())) emit(change);
      last = now;
    } catch {
      // A failed poll is tried again at the next tick.
    }
    started();
    if (!stopped) timer = setTimeout(tick, intervalMs);
  };
  void tick();
  return {
    ready,
    stop() {
      stopped = true;
      clearTimeout(timer);
      started();
    },
  };
};
