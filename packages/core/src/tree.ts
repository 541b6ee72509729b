/**
 * Path arithmetic on canonical memory paths, and the listing rule, shared by every store so that
 * each adapter derives directories and sizes the same way.
 */
import type { ListEntry, Listing } from "./store.js";

export const ROOT = "/memories";

/** A name shown in directory listings: not hidden (leading `.`) and not `node_modules`. */
export const isListedName = (name: string): boolean => !name.startsWith(".") && name !== "node_modules";

/** Segments below `/memories`: `/memories/a/b` → `["a", "b"]`, `/memories` → `[]`. */
export const segmentsOf = (path: string): string[] => (path === ROOT ? [] : path.slice(ROOT.length + 1).split("/"));

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
 * Files under an unlisted name are left out entirely, sizes included.
 */
export const listingFromFiles = (
  dir: string,
  files: Iterable<{ path: string; size: number }>,
  depth: number,
): Listing => {
  const prefixLength = dir === ROOT ? 0 : segmentsOf(dir).length;
  const entries = new Map<string, ListEntry>();
  let total = 0;
  for (const file of files) {
    if (!isSameOrInside(file.path, dir) || file.path === dir) continue;
    const rel = segmentsOf(file.path).slice(prefixLength);
    if (!rel.every(isListedName)) continue;
    total += file.size;
    const shown = Math.min(depth, rel.length);
    for (let d = 1; d <= shown; d++) {
      const path = `${dir}/${rel.slice(0, d).join("/")}`;
      const kind = d === rel.length ? "file" : "directory";
      const entry = entries.get(path);
      if (entry) entry.size += file.size;
      else entries.set(path, { path, kind, size: file.size, depth: d });
    }
  }
  return { size: total, entries: [...entries.values()] };
};
