/**
 * Path arithmetic on canonical memory paths, and the listing rule, shared by every store so that
 * each adapter derives directories and sizes the same way.
 */
import type { ListEntry, Listing } from "./store.js";

export const ROOT = "/memories";

/** A name shown in directory listings: not hidden (leading `.`) and not `node_modules`. */
export const isListedName = (name: string): boolean => !name.startsWith(".") && name !== "node_modules";

/** Segments below `/memories`: `/memories/a/b` → `["a", "b"]`, `/memories` → `[]`. */
export const segmentsOf = (path: string): string[] =>
  path === ROOT ? [] : path.slice(ROOT.length + 1).split("/");

/** The inverse of `segmentsOf`. */
export const pathOf = (segments: readonly string[]): string =>
  segments.length === 0 ? ROOT : `${ROOT}/${segments.join("/")}`;

/** The parent directory; `/memories` for top-level names. */
export const parentOf = (path: string): string => {
  const cut = path.lastIndexOf("/");
  return cut <= 0 || path === ROOT ? ROOT : path.slice(0, cut);
};

/** The last segment of a path. */
export const nameOf = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/** Proper ancestors, nearest first, ending with `/memories`: `/memories/a/b/c` → `[/memories/a/b, /memories/a, /memories]`. */
export const ancestorsOf = (path: string): string[] => {
  const out: string[] = [];
  let p = path;
  while (p !== ROOT) {
    p = parentOf(p);
    out.push(p);
  }
  return out;
};

/** True when `path` is `dir` itself or lies beneath it. */
export const isSameOrInside = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir === ROOT ? `${ROOT}/` : `${dir}/`);

/** `path` re-rooted from directory `from` to directory `to` (`path` must be inside `from`). */
export const rebase = (path: string, from: string, to: string): string => to + path.slice(from.length);

/**
 * Builds the listing of `dir` from every file beneath it, for stores that can enumerate files.
 * A directory whose name is listed shows even when everything inside it is hidden (it still exists,
 * SPEC §3); a file beneath an unlisted name adds nothing to any size.
 */
export const listingFromFiles = (
  dir: string,
  files: Iterable<{ path: string; size: number }>,
  depth: number,
): Listing => {
  const prefixLength = segmentsOf(dir).length;
  const entries = new Map<string, ListEntry>();
  let total = 0;
  for (const file of files) {
    if (file.path === dir || !isSameOrInside(file.path, dir)) continue;
    const rel = segmentsOf(file.path).slice(prefixLength);
    const firstHidden = rel.findIndex((name) => !isListedName(name));
    const visible = firstHidden === -1 ? rel.length : firstHidden;
    const size = firstHidden === -1 ? file.size : 0;
    total += size;
    for (let d = 1; d <= Math.min(depth, visible); d++) {
      const path = `${dir}/${rel.slice(0, d).join("/")}`;
      const entry = entries.get(path);
      if (entry) entry.size += size;
      else entries.set(path, { path, kind: d === rel.length ? "file" : "directory", size, depth: d });
    }
  }
  return { size: total, entries: [...entries.values()] };
};
