/** The options of `HistoryStore` and the bounds they set. */
import type { MemoryStore } from "@mem/core";
import type { HistoryEvent } from "./events.js";

export interface HistoryOptions {
  /** Versions kept per file, newest first; older ones are removed. Default 50. */
  maxVersions?: number;
  /** Versions older than this many seconds are removed. Default 30 days; `Infinity` keeps them. */
  maxAgeSeconds?: number;
  /**
   * The bytes of kept versions this store (each `scope(tenant)` on its own) may hold, all paths together.
   * Over it, the oldest versions are removed, down to three quarters of it. Default 64 MiB; `Infinity`
   * turns the bound (and its bookkeeping) off.
   */
  maxHistoryBytes?: number;
  /**
   * A second store for the versions. Default: the wrapped store itself, under the reserved hidden
   * directory `/memories/.mem-history` (invisible in listings and sizes, refused as a path to the model).
   */
  history?: MemoryStore;
  /** Called after each change (not awaited; what it throws or rejects with is ignored). */
  onChange?: (event: HistoryEvent) => void | Promise<void>;
  /** Put the new content in each event's `content`. Default false. */
  includeContent?: boolean;
  /** Milliseconds since the epoch; inject a fake clock in tests. Default `Date.now`. */
  clock?: () => number;
}

const DAY = 24 * 60 * 60;
/** Default of `maxHistoryBytes`. */
const DEFAULT_MAX_HISTORY_BYTES = 64 * 1024 * 1024;

const positive = (value: unknown, name: string, fallback: number, integer: boolean): number => {
  if (value === undefined) return fallback;
  const ok =
    typeof value === "number" && value > 0 && (integer ? Number.isInteger(value) : !Number.isNaN(value));
  if (!ok) throw new TypeError(`${name} must be a positive ${integer ? "integer" : "number"}`);
  return value;
};

/** The bounds `options` set, checked: a `TypeError` names a bad one. */
export const boundsOf = (
  options: HistoryOptions,
): { maxVersions: number; maxAgeMs: number; maxBytes: number } => ({
  maxVersions: positive(options.maxVersions, "maxVersions", 50, true),
  maxAgeMs: positive(options.maxAgeSeconds, "maxAgeSeconds", 30 * DAY, false) * 1000,
  maxBytes: positive(options.maxHistoryBytes, "maxHistoryBytes", DEFAULT_MAX_HISTORY_BYTES, false),
});
