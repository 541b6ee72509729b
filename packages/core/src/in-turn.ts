/** Edits of one file that queue up together, applied as one: what stores with a native `update` share. */

/** A change of a file's bytes, as `MemoryStore.update` takes it: the bytes to write, or `null` for none. */
export type BytesChange = (current: Uint8Array) => Uint8Array | null;

/** What `applyInTurn` made of a file's queued changes. */
export interface InTurn {
  /** The bytes to write, or `null` when no change asked for a write. */
  readonly next: Uint8Array | null;
  /** Per change, in order: what it threw (it then changed nothing), or `undefined`. */
  readonly thrown: ReadonlyArray<{ readonly error: unknown } | undefined>;
}

/**
 * Applies `changes` in order, each to the bytes the one before it left, so edits queued together for
 * one file need one read and one write. A change that throws is left out and its error kept for its
 * own caller; the others still apply.
 *
 * @example
 * ```ts
 * const { next, thrown } = applyInTurn(bytes, [append("a"), append("b")]);
 * if (next) await write(next);
 * ```
 */
export const applyInTurn = (current: Uint8Array, changes: readonly BytesChange[]): InTurn => {
  let data = current;
  let changed = false;
  const thrown = changes.map((change) => {
    try {
      const next = change(data);
      if (next) {
        data = next;
        changed = true;
      }
      return undefined;
    } catch (error) {
      return { error };
    }
  });
  return { next: changed ? data : null, thrown };
};

/**
 * Carries out one turn: reads the file, passes its bytes to `apply` and writes what `apply` returns (on
 * a lost race it may read and apply again); false, without calling `apply`, when no file is there.
 */
export type TakeTurn = (apply: BytesChange) => Promise<boolean>;

interface Waiting {
  readonly change: BytesChange;
  readonly resolve: (found: boolean) => void;
  readonly reject: (error: unknown) => void;
  /** What its change threw the last time the turn applied it. */
  threw?: { readonly error: unknown } | undefined;
}

/** Per owner (a client, a pool), the edits waiting for each file (by key) while one turn is under way. */
const turns = new WeakMap<object, Map<string, Waiting[]>>();

/**
 * Runs `change` in the next turn of file `key` of `owner`: edits of one file that arrive while a turn is
 * under way wait for it and then go together, one read and one write (`take`) for all of them, each
 * change applied in arrival order to what the one before left (`applyInTurn`). Resolves whether the
 * file was there; rejects with the turn's failure, or with what `change` itself threw.
 *
 * @example
 * ```ts
 * update(path, change) {
 *   return updateInTurn(this.client, `${this.prefix}\0${path}`, change, (apply) => this.#readApplyWrite(path, apply));
 * }
 * ```
 */
export const updateInTurn = (
  owner: object,
  key: string,
  change: BytesChange,
  take: TakeTurn,
): Promise<boolean> =>
  new Promise<boolean>((resolve, reject) => {
    let byKey = turns.get(owner);
    if (!byKey) {
      byKey = new Map();
      turns.set(owner, byKey);
    }
    const waiting = byKey.get(key);
    if (waiting) {
      waiting.push({ change, resolve, reject });
      return;
    }
    const queue: Waiting[] = [{ change, resolve, reject }];
    byKey.set(key, queue);
    void takeTurns(byKey, key, queue, take);
  });

const takeTurns = async (
  byKey: Map<string, Waiting[]>,
  key: string,
  queue: Waiting[],
  take: TakeTurn,
): Promise<void> => {
  while (queue.length > 0) {
    const turn = queue.splice(0);
    try {
      const found = await take((current) => {
        const { next, thrown } = applyInTurn(
          current,
          turn.map((item) => item.change),
        );
        turn.forEach((item, i) => {
          item.threw = thrown[i];
        });
        return next;
      });
      for (const item of turn) {
        if (item.threw) item.reject(item.threw.error);
        else item.resolve(found);
      }
    } catch (error) {
      for (const item of turn) item.reject(error);
    }
  }
  byKey.delete(key);
};
