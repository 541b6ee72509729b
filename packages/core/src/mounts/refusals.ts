/**
 * The refusals SPEC §8 adds to the dispatcher, decided from the mount table alone (no storage call):
 * mount points, read-only mounts, renames across mounts. The only part of core that knows of mounts.
 */

import { msg } from "../messages.js";
import type { CommandName } from "../parse.js";
import type { MemoryStore } from "../store.js";
import { encodeUtf8 } from "../text.js";
import { isSameOrInside, ROOT } from "../tree.js";
import { type Mount, ownerOf } from "./table.js";

/**
 * The key under which a mounted store holds its mounts: a property, so that a proxy around the store
 * (one that labels errors, or scopes) still carries its refusals.
 */
export const MOUNTS: unique symbol = Symbol.for("@mem/core.mounts") as never;

/** The mounts of a mounted store, longest mount point first; `undefined` for any other store. */
export const mountsOf = (store: MemoryStore): readonly Mount[] | undefined => {
  const mounts = (store as { [MOUNTS]?: unknown })[MOUNTS];
  return Array.isArray(mounts) ? mounts : undefined;
};

const byBytes = (a: string, b: string): number => {
  const x = encodeUtf8(a);
  const y = encodeUtf8(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
};

/** The first mount point (byte order) at or beneath `path`, other than `/memories`. */
const mountAtOrBelow = (mounts: readonly Mount[], path: string): string | undefined =>
  mounts
    .map((m) => m.path)
    .filter((m) => m !== ROOT && isSameOrInside(m, path))
    .sort(byBytes)[0];

const isMountPoint = (mounts: readonly Mount[], path: string): boolean => mounts.some((m) => m.path === path);

/**
 * The refusal SPEC §8 gives a command with canonical `paths` (one, or rename's two) on `store`, or
 * `null` when the store has no mounts or none applies. §4's rules for `/memories` itself come first and
 * stay the dispatcher's.
 */
export function mountRefusal(
  store: MemoryStore,
  command: CommandName,
  paths: readonly string[],
): string | null {
  const mounts = mountsOf(store);
  if (!mounts || command === "view") return null;
  const [path, to] = paths as [string, string | undefined];
  if ((command === "delete" && path === ROOT) || (command === "rename" && (path === ROOT || to === ROOT))) {
    return null;
  }
  if (command === "delete") {
    const mount = mountAtOrBelow(mounts, path);
    if (mount !== undefined) return msg.deleteMountPoint(path, mount);
  }
  if (command === "rename" && to !== undefined) {
    const mount = mountAtOrBelow(mounts, path);
    if (mount !== undefined) return msg.renameMountPoint(path, mount);
    if (isMountPoint(mounts, to)) return msg.renameMountPoint(to, to);
  }
  if (command === "create" && isMountPoint(mounts, path)) return msg.fileExists(path);
  for (const p of paths) {
    const owner = ownerOf(mounts, p);
    if (owner.access === "read_only") return msg.readOnlyMount(p, owner.path);
  }
  if (command === "rename" && to !== undefined && ownerOf(mounts, path) !== ownerOf(mounts, to)) {
    return msg.crossMountRename(path, to);
  }
  return null;
}
