import { describe, expect, it } from "vitest";
import { renderListing } from "../src/listing.js";
import { listingFromFiles } from "../src/tree.js";

const H = (p: string) =>
  `Here're the files and directories up to 2 levels deep in ${p}, excluding hidden items and node_modules:`;

const files = (entries: Record<string, number>) =>
  Object.entries(entries).map(([path, size]) => ({ path, size }));

describe("listing", () => {
  it("orders depth-first, siblings by UTF-16 code units, and sums sizes at any depth", () => {
    const listing = listingFromFiles(
      "/memories",
      files({
        "/memories/b.txt": 10,
        "/memories/a/z.txt": 1000,
        "/memories/a/B/deep/x": 2048,
        "/memories/Z": 1,
        "/memories/\u{1f600}": 2,
        "/memories/\uff5e": 3,
      }),
      2,
    );
    expect(renderListing("/memories", listing, 1000)).toBe(
      [
        H("/memories"),
        "3.0K\t/memories",
        "1B\t/memories/Z",
        "3.0K\t/memories/a/",
        "2.0K\t/memories/a/B/",
        "1000B\t/memories/a/z.txt",
        "10B\t/memories/b.txt",
        "2B\t/memories/\u{1f600}",
        "3B\t/memories/\uff5e",
      ].join("\n"),
    );
  });

  it("leaves out hidden names and node_modules with everything beneath, sizes included", () => {
    const listing = listingFromFiles(
      "/memories",
      files({
        "/memories/.secret": 100,
        "/memories/node_modules/x": 100,
        "/memories/d/.h/y": 100,
        "/memories/d/v": 5,
        "/memories/only-hidden/.x": 7,
      }),
      2,
    );
    expect(renderListing("/memories", listing, 1000)).toBe(
      [
        H("/memories"),
        "5B\t/memories",
        "5B\t/memories/d/",
        "5B\t/memories/d/v",
        "0B\t/memories/only-hidden/",
      ].join("\n"),
    );
  });

  it("lists a hidden directory viewed by its exact path", () => {
    const listing = listingFromFiles("/memories/.h", files({ "/memories/.h/a": 3, "/memories/.h/.b": 4 }), 2);
    expect(renderListing("/memories/.h", listing, 1000)).toBe(
      [H("/memories/.h"), "3B\t/memories/.h", "3B\t/memories/.h/a"].join("\n"),
    );
  });

  it("stops at the limit and counts what is left", () => {
    const listing = listingFromFiles(
      "/memories",
      files({ "/memories/a": 1, "/memories/b/c": 1, "/memories/d": 1 }),
      2,
    );
    expect(renderListing("/memories", listing, 2)).toBe(
      [
        H("/memories"),
        "3B\t/memories",
        "1B\t/memories/a",
        "1B\t/memories/b/",
        "... 2 more entries not shown. View a subdirectory to see them.",
      ].join("\n"),
    );
  });
});
