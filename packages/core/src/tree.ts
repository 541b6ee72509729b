/**
 * Path arithmetic on canonical memory paths, and the listing rule, shared by every store so that
 * each adapter derives directories and sizes the same way.
 */
import { nextTurn, Slices } from "./slices.js";
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

const SLASH = 47;

/** Where the first hidden or `node_modules` name of `path` starts at or after `from` (a `/`); -1 if none. */
const firstUnlisted = (path: string, from: number): number => {
  const found = path.indexOf("/.", from);
  let at = path.indexOf("/node_modules", from);
  while (at !== -1 && (found === -1 || at < found)) {
    const end = at + "/node_modules".length;
    if (end === path.length || path.charCodeAt(end) === SLASH) return at;
    at = path.indexOf("/node_modules", end);
  }
  return found;
};

/** Files folded into a listing per slice of {@link listingFromFilesInSlices}: about a millisecond's work. */
export const LISTING_SLICE = 2048;

/** The fold behind {@link listingFromFiles}: one file at a time, then the listing. */
class ListingBuilder {
  readonly #dir: string;
  readonly #base: number;
  readonly #depth: number;
  readonly #counting: boolean;
  readonly #entries = new Map<string, ListEntry>();
  #total = 0;
  #count = 0;

  constructor(dir: string, depth: number, counting: boolean) {
    this.#dir = dir;
    this.#base = dir.length + 1;
    this.#depth = depth;
    this.#counting = counting;
  }

  add(file: { path: string; size: number }): void {
    const { path } = file;
    const dir = this.#dir;
    const entries = this.#entries;
    const counting = this.#counting;
    if (path.length <= this.#base || path.charCodeAt(dir.length) !== SLASH || !path.startsWith(dir)) return;
    const hiddenAt = firstUnlisted(path, dir.length);
    const listed = hiddenAt === -1;
    const size = listed ? file.size : 0;
    if (listed) {
      this.#total += size;
      this.#count += 1;
    }
    let start = this.#base;
    for (let d = 1; d <= this.#depth; d++) {
      if (!listed && start - 1 >= hiddenAt) break;
      const slash = path.indexOf("/", start);
      const end = slash === -1 ? path.length : slash;
      const entryPath = end === path.length ? path : path.slice(0, end);
      const entry = entries.get(entryPath);
      if (entry) {
        entry.size += size;
        if (listed && counting) entry.files = (entry.files ?? 0) + 1;
      } else if (slash === -1) {
        entries.set(entryPath, { path: entryPath, kind: "file", size, depth: d });
      } else {
        const created: ListEntry = { path: entryPath, kind: "directory", size, depth: d };
        if (counting) created.files = listed ? 1 : 0;
        entries.set(entryPath, created);
      }
      if (slash === -1) break;
      start = slash + 1;
    }
  }

  listing(): Listing {
    const listing: Listing = { size: this.#total, entries: [...this.#entries.values()] };
    if (this.#counting) listing.files = this.#count;
    return listing;
  }
}

/**
 * Builds the listing of `dir` from every file beneath it, for stores that can enumerate files.
 * A directory whose name is listed shows even when everything inside it is hidden (it still exists,
 * SPEC §3); a file beneath an unlisted name adds nothing to any size. With `countFiles`, directory
 * entries and the listing carry `files`, the number of listed files beneath them. Linear in the total
 * length of the paths: entry paths are prefixes of the file paths, so nothing is split or joined.
 */
export const listingFromFiles = (
  dir: string,
  files: Iterable<{ path: string; size: number }>,
  depth: number,
  options: { countFiles?: boolean } = {},
): Listing => {
  const builder = new ListingBuilder(dir, depth, options.countFiles === true);
  for (const file of files) builder.add(file);
  return builder.listing();
};

/**
 * {@link listingFromFiles}, the same listing, built in slices of {@link LISTING_SLICE} files between
 * which the event loop runs: for stores that list many files on the main thread. `files` must not
 * change while it runs (pass a snapshot).
 *
 * @example
 * ```ts
 * await listingFromFilesInSlices("/memories", [{ path: "/memories/a.md", size: 5 }], 2)
 * // { size: 5, entries: [{ path: "/memories/a.md", kind: "file", size: 5, depth: 1 }] }
 * ```
 */
export const listingFromFilesInSlices = async (
  dir: string,
  files: Iterable<{ path: string; size: number }>,
  depth: number,
  options: { countFiles?: boolean } = {},
): Promise<Listing> => {
  const builder = new ListingBuilder(dir, depth, options.countFiles === true);
  const slices = new Slices(LISTING_SLICE);
  for (const file of files) {
    if (slices.spend()) await nextTurn();
    builder.add(file);
  }
  return builder.listing();
};
