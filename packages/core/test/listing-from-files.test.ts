import { describe, expect, it } from "vitest";
import { isListedName, type ListEntry, type Listing, listingFromFiles, segmentsOf } from "../src/index.js";

/** The rule written the plain way: split every path, join every prefix. */
const reference = (dir: string, files: { path: string; size: number }[], depth: number): Listing => {
  const prefix = segmentsOf(dir).length;
  const entries = new Map<string, ListEntry>();
  let size = 0;
  let count = 0;
  for (const file of files) {
    if (!file.path.startsWith(`${dir}/`)) continue;
    const rel = segmentsOf(file.path).slice(prefix);
    const hidden = rel.findIndex((name) => !isListedName(name));
    const visible = hidden === -1 ? rel.length : hidden;
    const bytes = hidden === -1 ? file.size : 0;
    size += bytes;
    if (hidden === -1) count += 1;
    for (let d = 1; d <= Math.min(depth, visible); d++) {
      const path = `${dir}/${rel.slice(0, d).join("/")}`;
      const kind = d === rel.length ? "file" : "directory";
      const entry = entries.get(path) ?? {
        path,
        kind,
        size: 0,
        depth: d,
        ...(kind === "directory" && { files: 0 }),
      };
      entry.size += bytes;
      if (entry.files !== undefined && hidden === -1) entry.files += 1;
      entries.set(path, entry);
    }
  }
  return { size, entries: [...entries.values()], files: count };
};

const NAMES = ["a", "b", ".h", "node_modules", "node_modulesx", "x.node_modules", "é", "😀", ".", "c.md"];

/** A deterministic pseudo-random tree (no collisions between a file and a directory of one name). */
const randomFiles = (seed: number, count: number) => {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
  const files = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const depth = 1 + next(4);
    const dirs = Array.from({ length: depth - 1 }, () => NAMES[next(NAMES.length)]!.replace(/^\.$/, "d"));
    files.set(`/memories/${[...dirs, `f${i}`].join("/")}`, next(1000));
  }
  return [...files].map(([path, size]) => ({ path, size }));
};

const sorted = (listing: Listing) => ({
  ...listing,
  entries: [...listing.entries].sort((x, y) => (x.path < y.path ? -1 : 1)),
});

describe("listingFromFiles", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`agrees with the rule written plainly (tree ${seed})`, () => {
      const files = randomFiles(seed, 400);
      for (const dir of ["/memories", "/memories/a", "/memories/node_modulesx", "/memories/.h"]) {
        for (const depth of [1, 2, 3]) {
          const expected = reference(dir, files, depth);
          expect(sorted(listingFromFiles(dir, files, depth, { countFiles: true }))).toEqual(sorted(expected));
          const plain = listingFromFiles(dir, files, depth);
          expect(plain.files).toBeUndefined();
          expect(plain.entries.every((e) => e.files === undefined)).toBe(true);
          expect(plain.size).toBe(expected.size);
        }
      }
    });
  }

  it("leaves out paths that only share the directory's name as a prefix", () => {
    const listing = listingFromFiles(
      "/memories/a",
      [
        { path: "/memories/ab/x", size: 1 },
        { path: "/memories/a", size: 2 },
        { path: "/memories/a/y", size: 3 },
      ],
      2,
    );
    expect(listing).toEqual({
      size: 3,
      entries: [{ path: "/memories/a/y", kind: "file", size: 3, depth: 1 }],
    });
  });
});
