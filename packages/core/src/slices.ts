/**
 * Long synchronous work cut into slices between which the event loop runs: a listing of 50,000 files or
 * a pass over a 1 MiB text would otherwise hold every other request of the process (other tenants
 * included) for as long as it takes.
 */

type Defer = (resume: () => void) => void;

const defer: Defer =
  typeof setImmediate === "function"
    ? (resume) => setImmediate(resume)
    : // Runtimes without `setImmediate` (workerd, browsers): a zero timeout is a turn of their loop.
      (resume) => setTimeout(resume, 0);

/**
 * Resolves on a later turn of the event loop, after the I/O and timers that are due: what a slice ends
 * with.
 */
export const nextTurn = (): Promise<void> => new Promise<void>((resume) => defer(resume));

/**
 * Counts units of work (entries, characters) and says when a slice of `size` of them is complete. The
 * count, not the clock, ends a slice, so the number of yields of a task depends on its size only.
 *
 * @example
 * ```ts
 * const slices = new Slices(1000);
 * for (const entry of entries) {
 *   if (slices.spend()) await nextTurn();
 *   // ... one entry's work
 * }
 * ```
 */
export class Slices {
  readonly #size: number;
  #left: number;
  /** The turn being waited for, while one is: every task stepping meanwhile waits for it too. */
  #turn: Promise<void> | undefined;

  constructor(size: number) {
    this.#size = size;
    this.#left = size;
  }

  /** Spends `count` units; true when that completes a slice (the caller then awaits `nextTurn()`). */
  spend(count = 1): boolean {
    this.#left -= count;
    if (this.#left > 0) return false;
    this.#left = this.#size;
    return true;
  }

  /**
   * Spends `count` units and, when that completes a slice, lets the event loop run first. Tasks that
   * share one `Slices` (a walk descending into directories in parallel) all wait for that turn: were
   * the others to go on, through promise callbacks only, the loop would never get it.
   */
  step(count = 1): Promise<void> | undefined {
    if (this.#turn) return this.#turn;
    if (!this.spend(count)) return undefined;
    this.#turn = nextTurn().then(() => {
      this.#turn = undefined;
    });
    return this.#turn;
  }
}
