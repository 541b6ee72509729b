/** view of a directory: order, limit and formatting of a store's `Listing`. */
import { msg } from "./messages.js";
import { formatSize } from "./size.js";
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
  const lines = [msg.directoryHeader(dir), `${formatSize(listing.size)}\t${dir}`];
  const shown = ordered.slice(0, limit);
  for (const entry of shown) {
    lines.push(`${formatSize(entry.size)}\t${entry.path}${entry.kind === "directory" ? "/" : ""}`);
  }
  const more = ordered.length - shown.length + (listing.omitted ?? 0);
  if (more > 0) lines.push(msg.moreEntries(more));
  return lines.join("\n");
}

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
