/** Bounded, jittered backoff for optimistic-concurrency retries. */

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The delay before retry number `attempt` (0-based): full jitter over an exponentially growing window,
 * capped at `capMs`, so contending writers spread out instead of colliding again in lockstep.
 */
export const backoffDelay = (attempt: number, baseMs = 1, capMs = 100): number =>
  Math.random() * Math.min(capMs, baseMs * 2 ** Math.min(attempt, 16));
