/** view of a directory: order, limit and formatting of a store's `Listing`. */
import { msg } from "./messages.js";
import { formatSize } from "./size.js";
import { nextTurn, Slices } from "./slices.js";
import type { ListEntry, Listing } from "./store.js";
import { nameOf, parentOf } from "./tree.js";

/**
 * The order of sibling names in a directory view: JavaScript's default sort order, by UTF-16 code units
 * (which differs from UTF-8 byte order for characters above U+FFFF). Stores that honour
 * `ListOptions.limit` pick the shown entries by it.
 *
 * @example
 * ```ts
 * ["b", "a"].sort(compareNames) // ["a", "b"]
 * ```
 */
export const compareNames = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

const byName = (a: ListEntry, b: ListEntry): number => compareNames(nameOf(a.path), nameOf(b.path));

/** Entries in depth-first pre-order, siblings sorted by name. */
export const orderEntries = (dir: string, entries: readonly ListEntry[]): ListEntry[] => {
  const children = new Map<string, ListEntry[]>();
  for (const entry of entries) {
    const parent = entry.depth === 1 ? dir : parentOf(entry.path);
    const siblings = children.get(parent);
    if (siblings) siblings.push(entry);
    else children.set(parent, [entry]);
  }
  const out: ListEntry[] = [];
  const visit = (parent: string): void => {
    for (const entry of (children.get(parent) ?? []).sort(byName)) {
      out.push(entry);
      if (entry.kind === "directory") visit(entry.path);
    }
  };
  visit(dir);
  return out;
};

/**
 * The text of view for a directory.
 *
 * @example
 * ```ts
 * renderListing("/memories", { size: 5, entries: [{ path: "/memories/a", kind: "file", size: 5, depth: 1 }] }, 1000)
 * // "Here're the files ... node_modules:\n5B\t/memories\n5B\t/memories/a"
 * ```
 */
export function renderListing(dir: string, listing: Listing, limit: number): string {
  const ordered = orderEntries(dir, listing.entries);
  return listingText(dir, listing, ordered.slice(0, limit), ordered.length);
}

/**
 * {@link renderListing}, the same text, in slices between which the event loop runs: entries are grouped
 * by parent in slices, and only the sibling groups the first `limit` entries come from are put in order
 * (a large group by sorted runs merged in slices), so a listing of 50,000 files never holds the loop.
 */
export async function renderListingInSlices(dir: string, listing: Listing, limit: number): Promise<string> {
  const { shown, count } = await firstInOrder(dir, listing.entries, limit);
  return listingText(dir, listing, shown, count);
}

const listingText = (dir: string, listing: Listing, shown: readonly ListEntry[], ordered: number): string => {
  const lines = [msg.directoryHeader(dir), `${formatSize(listing.size)}\t${dir}`];
  for (const entry of shown) {
    lines.push(`${formatSize(entry.size)}\t${entry.path}${entry.kind === "directory" ? "/" : ""}`);
  }
  const more = ordered - shown.length + (listing.omitted ?? 0);
  if (more > 0) lines.push(msg.moreEntries(more));
  return lines.join("\n");
};

/** Entries grouped per slice, and the units a sorted run of {@link RUN} entries counts for. */
const GROUP_SLICE = 4096;
const RUN = 512;

/**
 * The first `limit` entries of `orderEntries(dir, entries)`, and how many entries that order holds in
 * all (those reachable from `dir`), worked out in slices.
 */
const firstInOrder = async (
  dir: string,
  entries: readonly ListEntry[],
  limit: number,
): Promise<{ shown: ListEntry[]; count: number }> => {
  const slices = new Slices(GROUP_SLICE);
  const children = new Map<string, ListEntry[]>();
  for (const entry of entries) {
    if (slices.spend()) await nextTurn();
    const parent = entry.depth === 1 ? dir : parentOf(entry.path);
    const siblings = children.get(parent);
    if (siblings) siblings.push(entry);
    else children.set(parent, [entry]);
  }
  // The count of the whole order: every group reachable from `dir`, unsorted.
  let count = 0;
  const pending = [dir];
  for (let parent = pending.pop(); parent !== undefined; parent = pending.pop()) {
    const group = children.get(parent);
    if (!group) continue;
    if (slices.spend(group.length)) await nextTurn();
    count += group.length;
    for (const entry of group) if (entry.kind === "directory") pending.push(entry.path);
  }
  const shown: ListEntry[] = [];
  const visit = async (parent: string): Promise<void> => {
    const group = children.get(parent);
    if (!group) return;
    for (const entry of await firstSorted(group, limit - shown.length, slices)) {
      if (shown.length >= limit) return;
      shown.push(entry);
      if (entry.kind === "directory") await visit(entry.path);
    }
  };
  if (limit > 0) await visit(dir);
  return { shown, count };
};

/**
 * The first `k` of `items` in the stable order of `byName` (as `items.sort(byName).slice(0, k)`): runs
 * of {@link RUN} sorted one per step, cut to `k`, then merged pairwise in slices.
 */
const firstSorted = async (items: ListEntry[], k: number, slices: Slices): Promise<ListEntry[]> => {
  if (k <= 0) return [];
  if (items.length <= RUN) {
    if (slices.spend(items.length * 4)) await nextTurn();
    return items.sort(byName);
  }
  let runs: ListEntry[][] = [];
  for (let i = 0; i < items.length; i += RUN) {
    if (slices.spend(RUN * 4)) await nextTurn();
    const run = items.slice(i, i + RUN).sort(byName);
    if (run.length > k) run.length = k;
    runs.push(run);
  }
  while (runs.length > 1) {
    const merged: ListEntry[][] = [];
    for (let j = 0; j < runs.length; j += 2) {
      const left = runs[j]!;
      const right = runs[j + 1];
      if (!right) {
        merged.push(left);
        continue;
      }
      if (slices.spend(Math.min(k, left.length + right.length))) await nextTurn();
      merged.push(mergeRuns(left, right, k));
    }
    runs = merged;
  }
  return runs[0]!;
};

/** The first `k` of two sorted runs, merged; on equal names the left run's entry first (stable). */
const mergeRuns = (left: ListEntry[], right: ListEntry[], k: number): ListEntry[] => {
  const out: ListEntry[] = [];
  let i = 0;
  let j = 0;
  while (out.length < k && (i < left.length || j < right.length)) {
    if (j >= right.length || (i < left.length && byName(right[j]!, left[i]!) >= 0)) out.push(left[i++]!);
    else out.push(right[j++]!);
  }
  return out;
};

/**
 * What a store that honours `ListOptions.limit` returns, made from a complete listing: the first
 * `limit` entries in view's order and the count of the rest. For wrappers and stores that have every
 * entry at hand anyway and want to hand on less.
 *
 * @example
 * ```ts
 * limitListing("/memories", listing, 1000) // { size, entries: the first 1,000, omitted: the rest }
 * ```
 */
export function limitListing(dir: string, listing: Listing, limit: number | undefined): Listing {
  if (limit === undefined || listing.entries.length <= limit) return listing;
  const ordered = orderEntries(dir, listing.entries);
  return {
    ...listing,
    entries: ordered.slice(0, limit),
    omitted: ordered.length - limit + (listing.omitted ?? 0),
  };
}
