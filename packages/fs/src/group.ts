/**
 * Group commit: the changes a process queues for one root while the store lock is held run together
 * under the next hold, instead of taking and releasing the lock once each. Edits of distinct existing
 * files (an edit creates no directory and removes none) run at the same time, so their fsyncs overlap
 * in the thread pool; edits of one file queued together (`submitEdit`) share one read and one write,
 * each applied to what the one before it left; every other change runs alone, in queue order. Results
 * and errors go to each change's own caller once the lock is released, as they did when each change
 * held it alone.
 */
import { applyInTurn, type BytesChange, type InTurn, isSameOrInside } from "@mem/core";
import type { Dir } from "./dir.js";

/** What a change may touch: one existing file's content, or anything (creates, deletes, renames...). */
export type Claim = { readonly edit: string } | "exclusive";

/**
 * Reads the file under the held lock, passes its bytes to `change` and writes what it returns; false,
 * without calling `change`, when no file is there.
 */
export type ApplyChange = (root: Dir, change: BytesChange) => Promise<boolean>;

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

interface Job {
  readonly claim: Claim;
  /** Runs the change and keeps its outcome; never throws. */
  readonly run: (root: Dir) => Promise<void>;
  /** Hands the kept outcome to the caller, or `error` when the change did not succeed without it. */
  readonly settle: (error?: unknown) => void;
  /** Opens the root, takes the lock, runs `batch`, releases: the submitting store's way. */
  readonly hold: (batch: (root: Dir) => Promise<void>) => Promise<void>;
  /** Set for an edit that may share its read and write with edits of the same `key`. */
  readonly edit?: {
    readonly key: string;
    readonly change: BytesChange;
    readonly apply: ApplyChange;
    readonly keep: (outcome: Outcome<boolean>) => void;
  };
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

type EditJob = Job & { readonly edit: NonNullable<Job["edit"]> };

/**
 * One job for edits of one file: a single read, each edit's change applied in queue order to what the
 * one before left (an edit whose change throws fails alone and changes nothing), a single write.
 */
const together = (edits: readonly EditJob[]): Job => {
  const first = edits[0]!;
  return {
    claim: first.claim,
    hold: first.hold,
    settle: () => {},
    run: async (root) => {
      // What each change threw the last time `apply` ran them (it runs them once; only the last run counts).
      let thrown: InTurn["thrown"] = [];
      const change: BytesChange = (current) => {
        const turn = applyInTurn(
          current,
          edits.map((job) => job.edit.change),
        );
        thrown = turn.thrown;
        return turn.next;
      };
      let outcome: Outcome<boolean>;
      try {
        outcome = { ok: true, value: await first.edit.apply(root, change) };
      } catch (error) {
        outcome = { ok: false, error };
      }
      edits.forEach((job, i) => {
        const threw = thrown[i];
        job.edit.keep(threw ? { ok: false, error: threw.error } : outcome);
      });
    },
  };
};

/**
 * The batch as it runs: each edit joins the earlier edits of its key unless a change queued between
 * them touches the same file (moving it forward past changes of other files alters no outcome, since
 * none of them has been answered yet).
 */
const combined = (jobs: readonly Job[]): Job[] => {
  const units: Array<Job | EditJob[]> = [];
  const open = new Map<string, EditJob[]>();
  for (const job of jobs) {
    const group = job.edit && open.get(job.edit.key);
    if (group) {
      group.push(job as EditJob);
      continue;
    }
    for (const [key, edits] of open) if (overlaps(edits[0]!.claim, job.claim)) open.delete(key);
    if (job.edit) {
      const edits = [job as EditJob];
      open.set(job.edit.key, edits);
      units.push(edits);
    } else units.push(job);
  }
  return units.map((unit) => (!Array.isArray(unit) ? unit : unit.length === 1 ? unit[0]! : together(unit)));
};

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
        for (const wave of wavesOf(combined(batch))) await Promise.all(wave.map((job) => job.run(root)));
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

/** A job's `run`: carries out `task` and keeps its outcome for `settle`. */
const running =
  <T>(task: (root: Dir) => Promise<T>, keep: (outcome: Outcome<T>) => void) =>
  async (root: Dir): Promise<void> => {
    try {
      keep({ ok: true, value: await task(root) });
    } catch (error) {
      keep({ ok: false, error });
    }
  };

const enqueue = <T>(
  key: string,
  make: (keep: (outcome: Outcome<T>) => void, settle: (error?: unknown) => void) => Job,
): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    let queue = queues.get(key);
    if (!queue) {
      queue = { jobs: [], draining: false };
      queues.set(key, queue);
    }
    let outcome: Outcome<T> | undefined;
    const keep = (kept: Outcome<T>) => {
      outcome = kept;
    };
    const settle = (error?: unknown) => {
      if (outcome && !outcome.ok) reject(outcome.error);
      else if (error !== undefined || !outcome) reject(error);
      else resolve(outcome.value);
    };
    queue.jobs.push(make(keep, settle));
    if (!queue.draining) {
      queue.draining = true;
      void drain(queue, key);
    }
  });

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
): Promise<T> => enqueue<T>(key, (keep, settle) => ({ claim, hold, settle, run: running(task, keep) }));

/**
 * Runs an edit of file `path` under the lock of root `key`: `apply(root, change)`, or one `apply` for
 * it and the edits of the same `combineKey` queued beside it, each `change` given what the one before
 * it left. `combineKey` names the file and whatever else makes two edits' `apply` interchangeable.
 * Resolves what `apply` resolved (false: no file there).
 *
 * @example
 * ```ts
 * await submitEdit(root, "/memories/a.md", "/memories/a.md", hold, (bytes) => upper(bytes), applyChange);
 * ```
 */
export const submitEdit = (
  key: string,
  path: string,
  combineKey: string,
  hold: (batch: (root: Dir) => Promise<void>) => Promise<void>,
  change: BytesChange,
  apply: ApplyChange,
): Promise<boolean> =>
  enqueue<boolean>(key, (keep, settle) => ({
    claim: { edit: path },
    hold,
    settle,
    edit: { key: combineKey, change, apply, keep },
    run: running((root) => apply(root, change), keep),
  }));
