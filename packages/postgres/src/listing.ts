/** The limit a listing is asked for, and the rows of a listing statement turned into core's `Listing`. */
import type { ListEntry, Listing, ListOptions } from "@mem/core";

export const listLimit = (options: ListOptions | undefined): number | null => {
  const limit = options?.limit;
  // The function takes an int; a larger limit shows everything anyway.
  return limit !== undefined && Number.isSafeInteger(limit) && limit >= 0
    ? Math.min(limit, 2 ** 31 - 1)
    : null;
};

/** The rows of the `list` function: the directory's own row first, then its entries. */
export const listingOf = (rows: readonly Record<string, unknown>[]): Listing | null => {
  const [head, ...rest] = rows;
  if (!head) return null;
  const entries: ListEntry[] = rest.map((row) => ({
    path: row["r_path"] as string,
    kind: row["r_kind"] === "f" ? "file" : "directory",
    size: Number(row["r_size"]),
    depth: row["r_depth"] as number,
  }));
  const omitted = Number(head["r_omitted"] ?? 0);
  return omitted > 0
    ? { size: Number(head["r_size"]), entries, omitted }
    : { size: Number(head["r_size"]), entries };
};
