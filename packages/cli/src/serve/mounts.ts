/**
 * What the console shows of a store made of mounts (SPEC §8): the mount points and their access, and the
 * versions behind a path (each mount keeps its own).
 */
import { type MemoryStore, MountedStore, type MountInfo } from "@mem/core";
import { hasVersions, type Versioned } from "../versioned.js";

/** The mounts of `store`, or `undefined` for a store that is not made of mounts. */
export const mountsOf = (store: MemoryStore): readonly MountInfo[] | undefined =>
  store instanceof MountedStore ? store.mounts : undefined;

/** The read-only mount point `path` is, if it is one (the tree shows a lock on it). */
export const isReadOnlyMountPoint = (store: MemoryStore, path: string): boolean =>
  mountsOf(store)?.some((m) => m.path === path && m.access === "read_only") === true;

/**
 * The versions behind `path`: the store that keeps them (`@mem/history`'s or a store's own), the path as that store sees it, and
 * whether the path lies in a read-only mount (no restore is offered there). `null` when none are kept.
 */
export const historyAt = (
  store: MemoryStore,
  path: string,
): { history: Versioned; path: string; readOnly: boolean } | null => {
  if (!(store instanceof MountedStore))
    return hasVersions(store) ? { history: store, path, readOnly: false } : null;
  const at = store.mountOf(path);
  if (!hasVersions(at.store)) return null;
  return { history: at.store, path: at.path, readOnly: at.mount.access === "read_only" };
};
