/** Expiry of SPEC §7, shared by every store: the options' check and the one rule of when a file is gone. */
import type { ExpiryOptions } from "./store.js";

/** A store's expiry settings once checked; `null` from `expiryOf` when files never expire. */
export interface Expiry {
  /** Milliseconds without access after which a file is gone. */
  readonly limitMs: number;
  /** The current time in milliseconds since the epoch (the injected clock, or `Date.now`). */
  now(): number;
  /** Whether a file last accessed at `accessedMs` is gone at `now`: not accessed for *longer* than the limit. */
  isExpired(accessedMs: number, now?: number): boolean;
}

/**
 * Checks `expireAfterSeconds` and `clock` and returns the expiry rule, or `null` when expiry is off.
 * Throws a `TypeError` naming the option for anything but a positive finite number of seconds and a
 * function.
 *
 * @example
 * ```ts
 * const expiry = expiryOf({ expireAfterSeconds: 86_400 });
 * expiry?.isExpired(Date.now() - 2 * 86_400_000); // true
 * ```
 */
export function expiryOf(options: ExpiryOptions, name = "expireAfterSeconds"): Expiry | null {
  const { expireAfterSeconds: seconds, clock } = options;
  if (clock !== undefined && typeof clock !== "function") {
    throw new TypeError("clock must be a function returning milliseconds since the epoch");
  }
  if (seconds === undefined) return null;
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds <= 0) {
    throw new TypeError(`${name} must be a positive number of seconds, or left unset for no expiry`);
  }
  const now = clock ?? Date.now;
  const limitMs = seconds * 1000;
  return {
    limitMs,
    now: () => now(),
    isExpired: (accessedMs, at = now()) => at - accessedMs > limitMs,
  };
}
