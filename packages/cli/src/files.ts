/** Every file of a store, for the commands that back up, copy, verify or measure a whole store. */
import { type MemoryStore, ROOT, type StoredFile } from "@mem/core";

/** Paths are at most 1024 bytes, so no tree is deeper than this. */
const ALL_DEPTHS = 1024;

export interface Enumeration {
  /** In path order. */
  files: StoredFile[];
  /** False when the store has no `files()`: hidden and `node_modules` files could not be seen. */
  complete: boolean;
}

/**
 * The store's files, hidden ones included, through the optional `files()` of the store contract; a
 * store without it is walked through `list`, which cannot see hidden or `node_modules` files.
 */
export const enumerateFiles = async (store: MemoryStore): Promise<Enumeration> => {
  if (store.files) return { files: sorted(await store.files()), complete: true };
  const listing = await store.list(ROOT, ALL_DEPTHS);
  const files = (listing?.entries ?? [])
    .filter((e) => e.kind === "file")
    .map((e) => ({ path: e.path, size: e.size }));
  return { files: sorted(files), complete: false };
};

const sorted = (files: StoredFile[]): StoredFile[] =>
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

export const INCOMPLETE_NOTE =
  "Note: this store cannot enumerate hidden files (it has no files()); only listed files are included.";

export const sameBytes = (a: Uint8Array, b: Uint8Array): boolean =>
  a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
