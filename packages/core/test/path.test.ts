import { posix } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validatePath } from "../src/path.js";

const err = (raw: string, why: string) => `Error: The path ${raw} is not allowed: ${why}`;

describe("validatePath", () => {
  it("canonicalises the root and trailing slashes", () => {
    expect(validatePath("/memories")).toEqual({ ok: true, path: "/memories" });
    expect(validatePath("/memories/")).toEqual({ ok: true, path: "/memories" });
    expect(validatePath("/memories/notes/")).toEqual({ ok: true, path: "/memories/notes" });
    expect(validatePath("/memories/.hidden/a")).toEqual({ ok: true, path: "/memories/.hidden/a" });
  });

  it("normalises to NFC", () => {
    expect(validatePath("/memories/cafe\u0301")).toEqual({ ok: true, path: "/memories/caf\u00e9" });
  });

  it("rejects non-strings with the parameter's name", () => {
    expect(validatePath(3)).toEqual({ ok: false, error: "Error: Parameter `path` must be a string" });
    expect(validatePath(null, { param: "new_path" })).toEqual({
      ok: false,
      error: "Error: Parameter `new_path` must be a string",
    });
  });

  it.each([
    "/etc/passwd",
    "memories/a",
    "/memoriesX",
    "",
    "/",
    "/Memories/a",
    " /memories",
  ])("rejects %j as outside", (raw) => {
    expect(validatePath(raw)).toEqual({
      ok: false,
      error: `Error: The path ${raw} is outside the memory directory. All paths must start with /memories`,
    });
  });

  it.each([
    ["/memories/..", "it contains a '.' or '..' segment"],
    ["/memories/a/./b", "it contains a '.' or '..' segment"],
    ["/memories/\uff0e\uff0e/x", "it contains a '.' or '..' segment"],
    ["/memories/\u2025", "it contains a '.' or '..' segment"],
    ["/memories//a", "it contains an empty segment"],
    ["/memories//", "it contains an empty segment"],
    ["/memories/a\\b", "it contains a backslash"],
    ["/memories/%2e%2e", "it contains a percent-encoded sequence"],
    ["/memories/a%2Fb", "it contains a percent-encoded sequence"],
    ["/memories/%25", "it contains a percent-encoded sequence"],
  ])("rejects %j", (raw, why) => {
    expect(validatePath(raw)).toEqual({ ok: false, error: err(raw, why) });
  });

  it("accepts a lone percent sign and dotted names", () => {
    expect(validatePath("/memories/100%")).toEqual({ ok: true, path: "/memories/100%" });
    expect(validatePath("/memories/...")).toEqual({ ok: true, path: "/memories/..." });
    expect(validatePath("/memories/a.b")).toEqual({ ok: true, path: "/memories/a.b" });
  });

  it("shows control characters and lone surrogates as JSON escapes", () => {
    expect(validatePath("/memories/a\u0000b")).toEqual({
      ok: false,
      error: err("/memories/a\\u0000b", "it contains a control character"),
    });
    expect(validatePath("/memories/a\nb\u007f")).toEqual({
      ok: false,
      error: err("/memories/a\\u000ab\\u007f", "it contains a control character"),
    });
    expect(validatePath("/memories/\ud800")).toEqual({
      ok: false,
      error: err("/memories/\\ud800", "it contains a control character"),
    });
    expect(validatePath("/etc/\u0001")).toEqual({
      ok: false,
      error:
        "Error: The path /etc/\\u0001 is outside the memory directory. All paths must start with /memories",
    });
  });

  it("applies the checks in the table's order", () => {
    expect(validatePath("/memories/../a\\b")).toMatchObject({
      error: err("/memories/../a\\b", "it contains a '.' or '..' segment"),
    });
    expect(validatePath("/memories//a\\b")).toMatchObject({
      error: err("/memories//a\\b", "it contains an empty segment"),
    });
    expect(validatePath("/memories/a\\%2e")).toMatchObject({
      error: err("/memories/a\\%2e", "it contains a backslash"),
    });
  });

  it("limits path and name lengths in UTF-8 bytes", () => {
    const longName = "a".repeat(256);
    expect(validatePath(`/memories/${longName}`)).toEqual({
      ok: false,
      error: err(`/memories/${longName}`, "a name is longer than 255 bytes"),
    });
    expect(validatePath(`/memories/${"é".repeat(127)}`).ok).toBe(true);
    expect(validatePath(`/memories/${"é".repeat(128)}`).ok).toBe(false);
    const path1024 = `/memories/${Array.from({ length: 4 }, () => "b".repeat(252)).join("/")}`;
    expect(Buffer.byteLength(path1024)).toBe(1021);
    expect(validatePath(`${path1024}xyz`).ok).toBe(true);
    expect(validatePath(`${path1024}xyzw`)).toEqual({
      ok: false,
      error: err(`${path1024}xyzw`, "it is longer than 1024 bytes"),
    });
  });

  it("refuses names the store reserves", () => {
    const isReservedName = (n: string) => n.startsWith(".mem-");
    expect(validatePath("/memories/a/.mem-lock", { isReservedName })).toEqual({
      ok: false,
      error: err("/memories/a/.mem-lock", "it uses a reserved name"),
    });
    expect(validatePath("/memories/a/.memo", { isReservedName }).ok).toBe(true);
  });

  const segment = fc.oneof(
    fc.constantFrom(
      ".",
      "..",
      "",
      "%2e",
      "%2E%2e",
      "\uff0e",
      "\uff0e\uff0e",
      "\\..",
      "..\\",
      "a",
      "b.c",
      "\u0000",
      "é",
      "e\u0301",
      "node_modules",
      ".x",
    ),
    fc.string({ unit: "grapheme", maxLength: 6 }),
    fc.string({ unit: "binary", maxLength: 4 }),
  );
  const rawPath = fc
    .tuple(
      fc.constantFrom("/memories", "/memories/", "/", "", "memories/", "/memoriesX/"),
      fc.array(segment, { maxLength: 6 }),
      fc.boolean(),
    )
    .map(([head, segs, slash]) => head + segs.join("/") + (slash ? "/" : ""));

  it("never accepts a path that resolves outside /memories or keeps a traversal segment", () => {
    fc.assert(
      fc.property(rawPath, (raw) => {
        const result = validatePath(raw);
        if (!result.ok) return;
        expect(posix.normalize(result.path)).toBe(result.path);
        expect(result.path === "/memories" || result.path.startsWith("/memories/")).toBe(true);
        for (const s of result.path.split("/").slice(2)) {
          expect(s).not.toBe("");
          expect([".", ".."]).not.toContain(s.normalize("NFKC"));
          expect(s).not.toMatch(/[\\\u0000-\u001f\u007f]|%[0-9a-fA-F]{2}/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("is idempotent: a canonical path validates to itself", () => {
    fc.assert(
      fc.property(rawPath, (raw) => {
        const result = validatePath(raw);
        if (result.ok) expect(validatePath(result.path)).toEqual(result);
      }),
      { numRuns: 2000 },
    );
  });
});
