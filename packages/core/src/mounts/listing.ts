/**
 * Listings of a directory that holds mount points (SPEC §8): the owner's entries, minus what it holds at
 * or beneath a mount point, plus each mount as a directory with its whole size, and the mount's own
 * entries down to the requested depth.
 */
import { limitListing } from "../listing.js";
import type { ListEntry, Listing, ListOptions, MemoryStore, Stat } from "../store.js";
import { ancestorsOf, isSameOrInside, ROOT, rebase, segmentsOf } from "../tree.js";
import type { Mount } from "./table.js";

/** `path` of a store mounted at `mount`, as the table shows it. */
export const outer = (mount: string, path: string): string =>
  mount === ROOT ? path : rebase(path, ROOT, mount);

/** `path` of the table, as the store mounted at `mount` sees it. */
export const inner = (mount: string, path: string): string =>
  mount === ROOT ? path : rebase(path, mount, ROOT);

/** A store's listing with its paths moved beneath `mount`. */
export const outerListing = (mount: string, listing: Listing): Listing =>
  mount === ROOT
    ? listing
    : { ...listing, entries: listing.entries.map((e) => ({ ...e, path: outer(mount, e.path) })) };

/** The mounts strictly beneath `dir` that no other mount beneath `dir` contains. */
export const topMountsBelow = (mounts: readonly Mount[], dir: string): Mount[] => {
  const below = mounts.filter((m) => m.path !== dir && isSameOrInside(m.path, dir));
  return below.filter((m) => !below.some((n) => n !== m && isSameOrInside(m.path, n.path)));
};

/** What the table answers for one mount point beneath the listed directory. */
export interface MountedPart {
  mount: Mount;
  /** The table's listing of the mount point (nested mounts included), to the depth still shown. */
  listing: Listing;
}

const depthBelow = (dir: string, path: string): number => segmentsOf(path).length - segmentsOf(dir).length;

/**
 * Merges the owner's listing of `dir` (`base`, or `null` when the owner has nothing there) with the
 * mounted parts. `shadowOf` gives what the owner holds at a mount point deeper than the listing shows
 * (its size then hides in an entry's size); `limit` is applied last.
 */
export async function mergeListing(
  dir: string,
  depth: number,
  owner: { mount: Mount; base: Listing | null },
  parts: readonly MountedPart[],
  shadowOf: (path: string) => Promise<number>,
  options: ListOptions | undefined,
): Promise<Listing> {
  const entries = new Map<string, ListEntry>();
  const hidden = (path: string): boolean => parts.some((p) => isSameOrInside(path, p.mount.path));
  for (const entry of owner.base?.entries ?? []) {
    if (!hidden(entry.path)) entries.set(entry.path, { ...entry });
  }
  let size = owner.base?.size ?? 0;
  const grow = (path: string, by: number): void => {
    size += by;
    for (const a of ancestorsOf(path)) {
      if (a === dir || !isSameOrInside(a, dir)) break;
      const entry = entries.get(a);
      if (entry) entry.size += by;
    }
  };
  for (const { mount, listing } of parts) {
    const at = depthBelow(dir, mount.path);
    // The ancestors of a mount point are directories (a file of the owner there gives way).
    for (const a of [...ancestorsOf(mount.path), mount.path]) {
      if (a === dir || !isSameOrInside(a, dir)) continue;
      const d = depthBelow(dir, a);
      const found = entries.get(a);
      if (found?.kind === "file" && a !== mount.path) {
        entries.delete(a);
        grow(a, -found.size);
      }
      if (d <= depth && a !== mount.path && entries.get(a)?.kind !== "directory") {
        entries.set(a, { path: a, kind: "directory", size: 0, depth: d });
      }
    }
    // What the owner holds at the mount point is invisible: take its size back out of every total.
    const shown = owner.base?.entries.find((e) => e.path === mount.path);
    const covering = at > depth ? ancestorsOf(mount.path)[at - depth - 1] : undefined;
    const deep = covering !== undefined && owner.base?.entries.some((e) => e.path === covering) === true;
    const shadow = shown ? shown.size : deep ? await shadowOf(mount.path) : 0;
    grow(mount.path, listing.size - shadow);
    if (at <= depth)
      entries.set(mount.path, { path: mount.path, kind: "directory", size: listing.size, depth: at });
    for (const entry of listing.entries) {
      const d = entry.depth + at;
      if (d <= depth)
        entries.set(entry.path, { path: entry.path, kind: entry.kind, size: entry.size, depth: d });
    }
  }
  const merged: Listing = { size, entries: [...entries.values()] };
  return options?.limit === undefined ? merged : limitListing(dir, merged, options.limit);
}

/** What `store` (mounted at `mount`) holds at table path `path`, by the listing rule: 0 when nothing. */
export async function heldAt(store: MemoryStore, mount: string, path: string): Promise<number> {
  const p = inner(mount, path);
  const stat: Stat | null = await store.stat(p);
  if (!stat) return 0;
  if (stat.kind === "file") return stat.size;
  return (await store.list(p, 1, { limit: 1 }))?.size ?? 0;
}
