/** The console's search pages, live-feed comparison and tenant pages, without a browser. */
import { ForwardingStore, InMemoryStore, type MemoryStore } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { describe, expect, it } from "vitest";
import { compare } from "../src/serve/live.js";
import { compileMatcher } from "../src/serve/matcher.js";
import { search } from "../src/serve/search.js";
import { singleTenant, tenantPageOf } from "../src/serve/tenants.js";

const store = async () => {
  const s = new InMemoryStore();
  for (const name of ["a", "b", "c"]) {
    await s.write(`/memories/${name}.md`, new TextEncoder().encode(`x ${name}\ny\nx again\n`), {
      ifAbsent: true,
    });
  }
  await s.write("/memories/.hidden.md", new TextEncoder().encode("x hidden\n"), { ifAbsent: true });
  return s;
};

describe("search", () => {
  it("pages by file: a page ends after the file that reached the limit", async () => {
    const s = await store();
    const first = await search(
      s,
      { query: "x", regex: false, hidden: false, cursor: 0, limit: 3 },
      () => false,
    );
    expect(first.hits.map((h) => `${h.path}:${h.line}`)).toEqual([
      "/memories/a.md:1",
      "/memories/a.md:3",
      "/memories/b.md:1",
      "/memories/b.md:3",
    ]);
    expect(first.next).toBe("2");
    const second = await search(
      s,
      { query: "^x a", regex: true, hidden: false, cursor: Number(first.next), limit: 3 },
      () => false,
    );
    expect(second.hits).toEqual([{ path: "/memories/c.md", line: 3, text: "x again", marks: [[0, 3]] }]);
    expect(second.total).toBe(3);
    expect(second.next).toBeUndefined();
  });

  it("searches hidden files only when asked, stops when aborted, refuses a bad expression", async () => {
    const s = await store();
    const hidden = await search(
      s,
      { query: "hidden", regex: false, hidden: true, cursor: 0, limit: 10 },
      () => false,
    );
    expect(hidden.hits.map((h) => h.path)).toEqual(["/memories/.hidden.md"]);
    const shown = await search(
      s,
      { query: "hidden", regex: false, hidden: false, cursor: 0, limit: 10 },
      () => false,
    );
    expect(shown.hits).toEqual([]);
    const aborted = await search(
      s,
      { query: "x", regex: false, hidden: false, cursor: 0, limit: 10 },
      () => true,
    );
    expect(aborted).toEqual({ hits: [], searched: 0, total: 3, next: "0" });
    await expect(
      search(s, { query: "(", regex: true, hidden: false, cursor: 0, limit: 10 }, () => false),
    ).rejects.toThrow(TypeError);
  });
});

describe("matching", () => {
  it("finds every match of a substring or an expression, an empty match moving on", () => {
    expect(compileMatcher("ab", false).find("abcabab", 20)).toEqual([
      [0, 2],
      [3, 5],
      [5, 7],
    ]);
    expect(compileMatcher("ne+d", true).find("the needle, the neeed", 20)).toEqual([
      [4, 8],
      [16, 21],
    ]);
    expect(compileMatcher("x*", true).find("ab", 20)).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    expect(compileMatcher("a", false).find("aaaa", 2)).toHaveLength(2);
  });

  it("runs a pattern that backtracks exponentially in linear time, and refuses what it cannot run", async () => {
    // A backtracking engine takes 2^60 steps over this line; a linear one, one pass per line.
    const line = "a".repeat(60);
    const matcher = compileMatcher("(.*)*X", true);
    expect(matcher.find(line, 20)).toEqual([]);
    expect(compileMatcher("(a|aa)+$", true).find(`${"a".repeat(5000)}!`, 20)).toEqual([]);
    const s = new InMemoryStore();
    await s.write("/memories/line.md", new TextEncoder().encode(`${line}\n${line}X\n`), { ifAbsent: true });
    const page = await search(
      s,
      { query: "(.*)*X", regex: true, hidden: false, cursor: 0, limit: 10 },
      () => false,
    );
    expect(page.hits).toEqual([{ path: "/memories/line.md", line: 2, text: `${line}X`, marks: [[0, 61]] }]);
    // Backreferences and lookaround need backtracking: refused with the reason.
    expect(() => compileMatcher("(a)\\1", true)).toThrow(TypeError);
    expect(() => compileMatcher("(?=a)", true)).toThrow(/not a regular expression/);
  });
});

describe("live feed", () => {
  it("reports files and folders added, removed and resized", () => {
    const before = new Map([
      ["/memories/a.md", { size: 3, kind: "file" as const }],
      ["/memories/d", { size: 10, kind: "directory" as const }],
      ["/memories/gone.md", { size: 1, kind: "file" as const }],
    ]);
    const after = new Map([
      ["/memories/a.md", { size: 3, kind: "file" as const }],
      ["/memories/d", { size: 12, kind: "directory" as const }],
      ["/memories/new.md", { size: 5, kind: "file" as const }],
    ]);
    expect(compare(before, after, 7)).toEqual([
      { kind: "changed", path: "/memories/d", size: 12, entry: "directory", time: 7 },
      { kind: "added", path: "/memories/new.md", size: 5, entry: "file", time: 7 },
      { kind: "removed", path: "/memories/gone.md", entry: "file", time: 7 },
    ]);
  });
});

describe("tenant pages", () => {
  it("keeps the fields the store gave, last access in ms from a number or a Date", () => {
    const page = tenantPageOf({
      tenants: [
        { id: "a", files: 2, bytes: 30, lastAccess: new Date(Date.UTC(2026, 0, 2)) },
        { id: "b", lastAccess: 1_700_000_000_000 },
        { id: "c", files: -1, bytes: Number.NaN },
        { id: 7 } as unknown as { id: string },
      ],
      next: "c",
    });
    expect(page).toEqual({
      tenants: [
        { id: "a", files: 2, bytes: 30, lastAccess: Date.UTC(2026, 0, 2) },
        { id: "b", lastAccess: 1_700_000_000_000 },
        { id: "c" },
      ],
      next: "c",
    });
    expect(tenantPageOf({ tenants: [], next: "" })).toEqual({ tenants: [] });
  });

  it("describes a lone tenant by the one count (countStore): usage(), else listings, history apart", async () => {
    const s = await store();
    // Three 14-byte files and a 9-byte hidden one: usage() counts hidden files too.
    const counted = { tenants: [{ id: "t", files: 4, bytes: 51, historyBytes: 0 }] };
    expect(await singleTenant("t", s)).toEqual(counted);
    const uncounted: MemoryStore = Object.assign(new ForwardingStore(s), { usage: undefined });
    // Without usage() or files(), only listings: the hidden file is not seen.
    expect(await singleTenant("t", uncounted)).toEqual({
      tenants: [{ id: "t", files: 3, bytes: 42, historyBytes: 0 }],
    });
    // Versions kept by history are reported beside the files, never counted as files.
    const history = new HistoryStore(s);
    const current = await s.read("/memories/a.md");
    await history.write("/memories/a.md", new TextEncoder().encode("changed\n"), {
      ifVersion: current!.version,
    });
    const after = await singleTenant("t", s);
    expect(after.tenants[0]).toMatchObject({ files: 4, bytes: 51 - 14 + 8 });
    expect(after.tenants[0]!.historyBytes).toBeGreaterThanOrEqual(14);
  });
});
