/**
 * Quotas of SPEC §7: how many files and how many bytes a store (or a scope) may hold. Core asks the store
 * for its `usage()` just before a write and refuses the write when it would go over a limit.
 */

import { msg } from "./messages.js";
import type { MemoryStore, Usage, WriteQuota } from "./store.js";
import { ancestorsOf, ROOT } from "./tree.js";

export interface QuotaOptions {
  /** Most files the store may hold, hidden ones included. A `create` beyond it is refused. Unset: no limit. */
  maxFiles?: number;
  /**
   * Most bytes all files together may hold, hidden ones included. A `create`, `str_replace` or `insert`
   * that would go beyond it is refused; an edit that does not grow its file never is. Unset: no limit.
   */
  maxTotalBytes?: number;
}

const QUOTA_KEYS = ["maxFiles", "maxTotalBytes"] as const;

/**
 * Throws a `TypeError` naming the option when `maxFiles` or `maxTotalBytes` is set to anything but a
 * positive safe integer. These options come from the application, never from the model.
 *
 * @example
 * ```ts
 * checkQuotaOptions({ maxFiles: 100 });  // fine
 * checkQuotaOptions({ maxFiles: 0 });    // throws TypeError: maxFiles must be a positive integer...
 * ```
 */
export function checkQuotaOptions(options: QuotaOptions): void {
  for (const key of QUOTA_KEYS) {
    const value: unknown = options[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
      throw new TypeError(`${key} must be a positive integer (at least 1), or left unset for no limit`);
    }
  }
}

/**
 * A store's usage through its own `usage()`, or, for a store without one, by walking its listings:
 * files under hidden or `node_modules` names are then not counted (listings leave them out), so such a
 * store should implement `usage()` when it needs exact quotas.
 *
 * @example
 * ```ts
 * const { files, bytes } = await usageOf(store);
 * ```
 */
export async function usageOf(store: MemoryStore): Promise<Usage> {
  if (store.usage) return store.usage();
  return usageFromListings(store);
}

/** Counts the listed files beneath `/memories`, one directory level at a time. */
export async function usageFromListings(store: MemoryStore): Promise<Usage> {
  const usage: Usage = { files: 0, bytes: 0 };
  const pending = [ROOT];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const listing = await store.list(dir, 1);
    for (const entry of listing?.entries ?? []) {
      if (entry.kind === "directory") pending.push(entry.path);
      else {
        usage.files += 1;
        usage.bytes += entry.size;
      }
    }
  }
  return usage;
}

/**
 * Whether a write of `size` bytes breaks `quota`, given the `usage` just before it: `before` is the size of
 * the file it replaces, `null` for a create. The one rule of every store's `writeWithinQuota`.
 *
 * @example
 * ```ts
 * exceedsQuota({ maxFiles: 5 }, { files: 5, bytes: 10 }, 3, null); // true: a sixth file
 * exceedsQuota({ maxTotalBytes: 8 }, { files: 1, bytes: 10 }, 4, 6); // false: the file shrinks
 * ```
 */
export function exceedsQuota(quota: WriteQuota, usage: Usage, size: number, before: number | null): boolean {
  const { maxFiles, maxTotalBytes } = quota;
  if (before === null) {
    if (maxFiles !== undefined && usage.files + 1 > maxFiles) return true;
    return maxTotalBytes !== undefined && usage.bytes + size > maxTotalBytes;
  }
  return maxTotalBytes !== undefined && size > before && usage.bytes - before + size > maxTotalBytes;
}

/** The quota part of one command: created by `quotaFor`, `null` when no quota is set. */
export interface Quota {
  /** The limits, for a store's `writeWithinQuota`. */
  readonly limits: WriteQuota;
  /** The refusal of a `create` of `size` bytes at `path`, or `null` when it fits. */
  create(path: string, size: number): Promise<string | null>;
  /** The refusal of a `create` of `size` bytes at `path` given `usage` taken before it, or `null`. */
  createRefusal(path: string, usage: Usage, size: number): string | null;
  /** Whether edits need `usage()`: only when `maxTotalBytes` is set. */
  readonly limitsBytes: boolean;
  /** The refusal of an edit from `before` to `after` bytes, given `usage` taken before it, or `null`. */
  edit(path: string, usage: Usage, before: number, after: number): string | null;
  usage(): Promise<Usage>;
}

/** The quotas of `options` on `store`, or `null` when neither limit is set. */
export function quotaFor(store: MemoryStore, options: QuotaOptions): Quota | null {
  const { maxFiles, maxTotalBytes } = options;
  if (maxFiles === undefined && maxTotalBytes === undefined) return null;
  const usage = () => usageOf(store);
  const createRefusal = (path: string, now: Usage, size: number): string | null => {
    if (maxFiles !== undefined && now.files + 1 > maxFiles)
      return msg.tooManyFiles(path, now.files, maxFiles);
    if (maxTotalBytes !== undefined && now.bytes + size > maxTotalBytes) {
      return msg.tooManyBytes(path, now.bytes + size, maxTotalBytes);
    }
    return null;
  };
  return {
    limits: {
      ...(maxFiles === undefined ? {} : { maxFiles }),
      ...(maxTotalBytes === undefined ? {} : { maxTotalBytes }),
    },
    limitsBytes: maxTotalBytes !== undefined,
    usage,
    createRefusal,
    async create(path, size) {
      return createRefusal(path, await usage(), size);
    },
    edit(path, now, before, after) {
      if (maxTotalBytes === undefined || after <= before) return null;
      const total = now.bytes - before + after;
      return total > maxTotalBytes ? msg.tooManyBytes(path, total, maxTotalBytes) : null;
    },
  };
}

/**
 * Two quotas at once: `outer` (a mount table's) checked first, then `inner` (one mount's, measured on its
 * own store). `null` when both are. Its `limits` are `outer`'s: a store with `writeWithinQuota` measures
 * itself, which only the table can be, so `inner` is then checked from its own usage in `usage()`.
 */
export function bothQuotas(outer: Quota | null, inner: Quota | null): Quota | null {
  if (!outer || !inner) return outer ?? inner;
  // The inner usage travels with the outer one it was taken with.
  const taken = new WeakMap<Usage, Usage>();
  const createRefusal = (path: string, now: Usage, size: number): string | null => {
    const own = taken.get(now);
    return outer.createRefusal(path, now, size) ?? (own ? inner.createRefusal(path, own, size) : null);
  };
  const usage = async (): Promise<Usage> => {
    const [o, i] = await Promise.all([outer.usage(), inner.usage()]);
    const now = { ...o };
    taken.set(now, i);
    return now;
  };
  return {
    limits: outer.limits,
    limitsBytes: outer.limitsBytes || inner.limitsBytes,
    usage,
    createRefusal,
    async create(path, size) {
      return createRefusal(path, await usage(), size);
    },
    edit(path, now, before, after) {
      const own = taken.get(now);
      return outer.edit(path, now, before, after) ?? (own ? inner.edit(path, own, before, after) : null);
    },
  };
}

/**
 * The command's own refusal of a `create` that a quota would refuse (SPEC §7: the command's checks come
 * first): something already at `path`, or a file among its ancestors. Only asked on the refusal path.
 */
export async function createOwnError(store: MemoryStore, path: string): Promise<string | null> {
  if (await store.stat(path)) return msg.fileExists(path);
  for (const ancestor of ancestorsOf(path).reverse()) {
    if (ancestor === ROOT) continue;
    const stat = await store.stat(ancestor);
    if (!stat) return null;
    if (stat.kind === "file") return msg.createUnderFile(path, ancestor);
  }
  return null;
}
