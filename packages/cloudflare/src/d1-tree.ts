/**
 * What the D1 store's directory totals need from a path (the columns of d1-schema.ts), and the listing
 * that reads only the entries it shows.
 */
import {
  ancestorsOf,
  isListedName,
  type ListEntry,
  type Listing,
  nameOf,
  parentOf,
  ROOT,
  segmentsOf,
} from "@mem/core";

/** A name in UTF-16BE as hex: text order of these is view's sibling order (UTF-16 code units). */
export const sortOf = (name: string): string => {
  let out = "";
  for (let i = 0; i < name.length; i++) out += name.charCodeAt(i).toString(16).padStart(4, "0");
  return out;
};

/** The level of the deepest hidden or `node_modules` name of `path` (1 for the first below `/memories`), 0 if none. */
export const hiddenLevel = (path: string): number => {
  const segments = segmentsOf(path);
  for (let i = segments.length - 1; i >= 0; i--) if (!isListedName(segments[i] as string)) return i + 1;
  return 0;
};

export const levelOf = (path: string): number => segmentsOf(path).length;

type AncestorEntry = [path: string, sort: string, listed: 0 | 1];

const entryOf = (dir: string): AncestorEntry =>
  dir === ROOT ? [ROOT, "", 1] : [dir, sortOf(nameOf(dir)), isListedName(nameOf(dir)) ? 1 : 0];

/** `/memories` and every directory down to the parent of `path`, as the `ancestors` column holds them. */
export const ancestorEntries = (path: string): AncestorEntry[] => ancestorsOf(path).reverse().map(entryOf);

/** The columns of a file row at `path` beyond its content: parent, sort, listed, hid, ancestors. */
export const fileColumns = (path: string): [string, string, number, number, string] => {
  const name = nameOf(path);
  return [
    parentOf(path),
    sortOf(name),
    isListedName(name) ? 1 : 0,
    hiddenLevel(path),
    JSON.stringify(ancestorEntries(path)),
  ];
};

/** The bound values a rename of `from` to `to` sets the moved rows' columns from (see d1-store.ts). */
export const renameColumns = (from: string, to: string): unknown[] => {
  const [toParent, toSort, toListed, toHid, toAncestors] = fileColumns(to);
  return [
    toParent,
    toSort,
    toListed,
    toHid,
    toAncestors,
    JSON.stringify([...ancestorEntries(to), entryOf(to)]),
    levelOf(from),
    levelOf(to),
  ];
};

/**
 * The listing of `dir` down to `depth` levels, at most `limit` entries (-1: all) in view's order: a
 * recursive walk whose queue is ordered by the entries' sort keys (a child's key is its parent's, `/`,
 * its own, and `/` sorts before every hex digit), so it visits entries depth-first in view's order and
 * stops at `limit`. Each directory's children come from the children index, at most `limit` of them.
 * Parameters: ?1 tenant, ?2 dir, ?3 limit, ?4 depth.
 */
export const LISTING_SQL = `WITH RECURSIVE walk(path, kind, size, shown, level, k) AS (
  SELECT * FROM (
    SELECT path, 'f', size, 1, 1, sort FROM mem_files WHERE tenant = ?1 AND parent = ?2 AND listed = 1
    UNION ALL
    SELECT path, 'd', size, shown, 1, sort FROM mem_dirs WHERE tenant = ?1 AND parent = ?2 AND listed = 1
    ORDER BY 6 LIMIT ?3)
  UNION ALL
  SELECT c.path, 'f', c.size, 1, w.level + 1, w.k || '/' || c.sort FROM walk w JOIN mem_files c
    ON c.rowid IN (SELECT rowid FROM mem_files WHERE tenant = ?1 AND parent = w.path AND listed = 1 ORDER BY sort LIMIT ?3)
    WHERE w.kind = 'd' AND w.level < ?4
  UNION ALL
  SELECT c.path, 'd', c.size, c.shown, w.level + 1, w.k || '/' || c.sort FROM walk w JOIN mem_dirs c
    ON c.rowid IN (SELECT rowid FROM mem_dirs WHERE tenant = ?1 AND parent = w.path AND listed = 1 ORDER BY sort LIMIT ?3)
    WHERE w.kind = 'd' AND w.level < ?4
  ORDER BY 6 LIMIT ?3
) SELECT path, kind, size, shown, level FROM walk`;

/** The directory's own row: its totals and its counts of entries. Parameters: ?1 tenant, ?2 dir. */
export const HEAD_SQL = "SELECT size, shown, kids, kids2 FROM mem_dirs WHERE tenant = ?1 AND path = ?2";

type Row = Record<string, unknown>;

/**
 * The listing from the head row and the walked rows; `null` when `dir` is not a directory. With a
 * `limit` reached, the rest within one or two levels is counted from the head's `kids`/`kids2`.
 */
export const listingOf = (
  dir: string,
  head: Row | undefined,
  rows: readonly Row[],
  depth: number,
  limit: number | undefined,
  countFiles: boolean,
): Listing | null => {
  if (!head && dir !== ROOT) return null;
  const entries = rows.map((row) => {
    const entry: ListEntry = {
      path: row.path as string,
      kind: row.kind === "f" ? "file" : "directory",
      size: row.size as number,
      depth: row.level as number,
    };
    if (countFiles && row.kind === "d") entry.files = row.shown as number;
    return entry;
  });
  const listing: Listing = { size: (head?.size as number | undefined) ?? 0, entries };
  if (countFiles) listing.files = (head?.shown as number | undefined) ?? 0;
  if (limit !== undefined && entries.length >= limit) {
    const within = (depth === 1 ? head?.kids : head?.kids2) as number | undefined;
    listing.omitted = (within ?? 0) - entries.length;
  }
  return listing;
};

/** Whether a listing to `depth` levels can be cut at `limit` with the counts the rows keep. */
export const countable = (depth: number): boolean => depth === 1 || depth === 2;
