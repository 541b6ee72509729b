/**
 * Listing size correction: the inner store lists ciphertext sizes, views show plaintext ones. Every
 * ciphertext carries the same fixed overhead, so sizes are corrected without reading any file.
 */
import { type ListEntry, type Listing, type ListOptions, pathOf, segmentsOf } from "@mem/core";
import { integrityError, OVERHEAD, plaintextSize } from "./format.js";

/** The plaintext size of the ciphertext of `size` bytes at `path`. */
export const sizeOf = (path: string, size: number): number => {
  try {
    return plaintextSize(size);
  } catch {
    throw integrityError(`${path} is shorter than any encrypted file`);
  }
};

/** `shown`, an inner listing asked with `countFiles` that has every count, with plaintext sizes. */
export const plaintextListing = (shown: Listing, options: ListOptions | undefined): Listing => {
  const lessOverheads = (size: number, files: number) => Math.max(0, size - files * OVERHEAD);
  const entries = shown.entries.map((entry): ListEntry => {
    const size =
      entry.kind === "file" ? sizeOf(entry.path, entry.size) : lessOverheads(entry.size, entry.files ?? 0);
    const plain: ListEntry = { path: entry.path, kind: entry.kind, size, depth: entry.depth };
    if (options?.countFiles && entry.files !== undefined) plain.files = entry.files;
    return plain;
  });
  const listing: Listing = { size: lessOverheads(shown.size, shown.files ?? 0), entries };
  if (shown.omitted !== undefined) listing.omitted = shown.omitted;
  if (options?.countFiles) listing.files = shown.files ?? 0;
  return listing;
};

/** The listing of `dir` to `depth`, with plaintext sizes added up from `deep`, its whole subtree. */
export const plaintextFromSubtree = (dir: string, deep: Listing, depth: number): Listing => {
  const base = segmentsOf(dir);
  const sizes = new Map<string, number>();
  let total = 0;
  for (const entry of deep.entries) {
    if (entry.kind !== "file") continue;
    const size = sizeOf(entry.path, entry.size);
    total += size;
    sizes.set(entry.path, size);
    const segments = segmentsOf(entry.path);
    for (let d = 1; d <= depth && base.length + d < segments.length; d++) {
      const ancestor = pathOf(segments.slice(0, base.length + d));
      sizes.set(ancestor, (sizes.get(ancestor) ?? 0) + size);
    }
  }
  const entries = deep.entries
    .filter((entry) => entry.depth <= depth)
    .map((entry) => ({
      path: entry.path,
      kind: entry.kind,
      size: sizes.get(entry.path) ?? 0,
      depth: entry.depth,
    }));
  return { size: total, entries };
};
