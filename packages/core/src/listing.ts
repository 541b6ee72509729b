/** view of a directory: order, limit and formatting of a store's `Listing`. */
import { msg } from "./messages.js";
import { formatSize } from "./size.js";
import type { ListEntry, Listing } from "./store.js";
import { nameOf, parentOf } from "./tree.js";

/** JavaScript's default sort order: UTF-16 code units. */
const byName = (a: ListEntry, b: ListEntry): number => {
  const x = nameOf(a.path);
  const y = nameOf(b.path);
  return x < y ? -1 : x > y ? 1 : 0;
};

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
  for (const entry of ordered.slice(0, limit)) {
    lines.push(`${formatSize(entry.size)}\t${entry.path}${entry.kind === "directory" ? "/" : ""}`);
  }
  if (ordered.length > limit) lines.push(msg.moreEntries(ordered.length - limit));
  return lines.join("\n");
}
