/** Bounded parallelism for tree walks: a budget of open directory descriptors, and settling all of a batch. */

/** Waits for every promise to settle, then rethrows the first failure (so nothing is left running). */
export const settleAll = async <T>(promises: readonly Promise<T>[]): Promise<T[]> => {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
};

/**
 * A budget of extra directory descriptors a tree walk may hold open. A walk descends in parallel while
 * the budget lasts and inline (one subdirectory after another) once it is spent, so the number of open
 * descriptors stays bounded without ever waiting on the budget (which could deadlock a recursion).
 */
export class Budget {
  #left: number;
  constructor(left: number) {
    this.#left = left;
  }
  tryTake(): boolean {
    if (this.#left <= 0) return false;
    this.#left--;
    return true;
  }
  give(): void {
    this.#left++;
  }
}

/** Visits `names` with `task`, in parallel while `budget` allows; all have settled when it returns. */
export const forEachWithBudget = async (
  names: readonly string[],
  budget: Budget,
  task: (name: string) => Promise<void>,
): Promise<void> => {
  const pending: Promise<void>[] = [];
  let inlineFailure: { error: unknown } | null = null;
  for (const name of names) {
    if (inlineFailure) break;
    if (budget.tryTake()) {
      pending.push(task(name).finally(() => budget.give()));
      continue;
    }
    try {
      await task(name);
    } catch (error) {
      inlineFailure = { error };
    }
  }
  await settleAll(pending);
  if (inlineFailure) throw inlineFailure.error;
};
