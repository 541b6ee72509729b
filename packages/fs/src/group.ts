/**
 * Group commit: the changes a process queues for one root while the store lock is held run together
 * under the next hold, instead of taking and releasing the lock once each. Edits of distinct existing
 * files (an edit creates no directory and removes none) run at the same time, so their fsyncs overlap
 * in the thread pool; every other change runs alone, in queue order. Results and errors go to each
 * change's own caller once the lock is released, as they did when each change held it alone.
 */
import { isSameOrInside } from "@mem/core";
import type { Dir } from "./dir.js";

/** What a change may touch: one existing file's content, or anything (creates, deletes, renames...). */
export type Claim = { readonly edit: string } | "exclusive";

interface Job {
  readonly claim: Claim;
  /** Runs the change and keeps its outcome; never throws. */
  readonly run: (root: Dir) => Promise<void>;
  /** Hands the kept outcome to the caller, or `error` when the change did not succeed without it. */
  readonly settle: (error?: unknown) => void;
  /** Opens the root, takes the lock, runs `batch`, releases: the submitting store's way. */
  readonly hold: (batch: (root: Dir) => Promise<void>) => Promise<void>;
}

interface Queue {
  jobs: Job[];
  draining: boolean;
}

// On globalThis, as the held-lock tokens are: two copies of this module in one process share queues.
const QUEUES_KEY = Symbol.for("@mem/fs:commit-queues");
const shared = globalThis as { [QUEUES_KEY]?: Map<string, Queue> };
shared[QUEUES_KEY] ??= new Map<string, Queue>();
const queues: Map<string, Queue> = shared[QUEUES_KEY];

const overlaps = (a: Claim, b: Claim): boolean =>
  a === "exclusive" || b === "exclusive" || isSameOrInside(a.edit, b.edit) || isSameOrInside(b.edit, a.edit);

/** Splits a batch into waves run one after another; the changes of a wave touch disjoint files. */
const wavesOf = (jobs: readonly Job[]): Job[][] => {
  const waves: Job[][] = [];
  let wave: Job[] = [];
  for (const job of jobs) {
    if (wave.some((other) => overlaps(other.claim, job.claim))) {
      waves.push(wave);
      wave = [];
    }
    wave.push(job);
  }
  if (wave.length > 0) waves.push(wave);
  return waves;
};

const drain = async (queue: Queue, key: string): Promise<void> => {
  while (queue.jobs.length > 0) {
    const batch = queue.jobs.splice(0);
    let failure: { error: unknown } | undefined;
    try {
      await batch[0]!.hold(async (root) => {
        for (const wave of wavesOf(batch)) await Promise.all(wave.map((job) => job.run(root)));
      });
    } catch (error) {
      // The lock could not be taken or released: every change of the batch reports it.
      failure = { error };
    }
    for (const job of batch) job.settle(failure?.error);
  }
  queue.draining = false;
  if (queue.jobs.length === 0) queues.delete(key);
};

/**
 * Runs `task` under the lock of root `key`, together with the other changes queued meanwhile.
 *
 * @example
 * ```ts
 * await submit(root, { edit: "/memories/a.md" }, (batch) => lockedRoot(batch), (dir) => edit(dir));
 * ```
 */
export const submit = <T>(
  key: string,
  claim: Claim,
  hold: (batch: (root: Dir) => Promise<void>) => Promise<void>,
  task: (root: Dir) => Promise<T>,
): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    let queue = queues.get(key);
    if (!queue) {
      queue = { jobs: [], draining: false };
      queues.set(key, queue);
    }
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    queue.jobs.push({
      claim,
      hold,
      run: async (root) => {
        try {
          outcome = { ok: true, value: await task(root) };
        } catch (error) {
          outcome = { ok: false, error };
        }
      },
      settle: (error) => {
        if (outcome && !outcome.ok) reject(outcome.error);
        else if (error !== undefined || !outcome) reject(error);
        else resolve(outcome.value);
      },
    });
    if (!queue.draining) {
      queue.draining = true;
      void drain(queue, key);
    }
  });
