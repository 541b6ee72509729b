/** Edits of one file that queued up together, applied as one: what stores with a native `update` share. */

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
