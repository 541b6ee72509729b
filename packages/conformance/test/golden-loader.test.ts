import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore } from "@mem/core";
import { afterAll, describe, expect, it } from "vitest";
import { materialize } from "../src/content.js";
import {
  GoldenFormatError,
  goldenDirectory,
  loadGoldenTranscripts,
  parseGoldenTranscript,
} from "../src/index.js";
import { expectTree } from "../src/store-tree.js";

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("latin1");
const step = { input: { command: "view", path: "/memories" }, content: "x", isError: false };

describe("materialize", () => {
  it("encodes text as UTF-8", () => {
    expect([...materialize("é\n")]).toEqual([0xc3, 0xa9, 0x0a]);
  });
  it("decodes base64 to raw bytes", () => {
    expect([...materialize({ base64: "/w==" })]).toEqual([0xff]);
    expect(materialize({ base64: "" }).length).toBe(0);
  });
  it("repeats a text", () => {
    expect(text(materialize({ repeat: "ab", count: 3 }))).toBe("ababab");
    expect(materialize({ repeat: "x", count: 1_048_575 }).length).toBe(1_048_575);
    expect(materialize({ repeat: "x", count: 0 }).length).toBe(0);
  });
  it("numbers lines, with a final newline unless told otherwise", () => {
    expect(text(materialize({ lines: 3 }))).toBe("line 1\nline 2\nline 3\n");
    expect(text(materialize({ lines: 2, prefix: "l", newline: "\r\n", trailingNewline: false }))).toBe(
      "l1\r\nl2",
    );
    expect(text(materialize({ lines: 0 }))).toBe("");
  });
  it("concatenates parts of any form", () => {
    expect([...materialize({ concat: ["a", { base64: "/w==" }, { repeat: "b", count: 2 }] })]).toEqual([
      0x61, 0xff, 0x62, 0x62,
    ]);
  });
});

describe("parseGoldenTranscript", () => {
  it("fills in defaults and joins content lines with \\n", () => {
    const t = parseGoldenTranscript({ steps: [{ ...step, content: ["a", "b"] }] }, "t");
    expect(t).toEqual({
      name: "t",
      description: "",
      options: {},
      files: {},
      steps: [{ input: step.input, content: "a\nb", isError: false }],
      final: {},
      absent: [],
    });
  });

  it("keeps any JSON value as input, null included", () => {
    const t = parseGoldenTranscript(
      {
        steps: [
          { ...step, input: null },
          { ...step, input: [1] },
        ],
      },
      "t",
    );
    expect(t.steps.map((s) => s.input)).toEqual([null, [1]]);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["a non-object", [], /must be a JSON object/],
    ["an unknown field", { steps: [step], extra: 1 }, /extra: unknown field/],
    ["no steps", { steps: [] }, /steps: must be a non-empty list/],
    ["a step without input", { steps: [{ content: "x", isError: false }] }, /steps\[0\]\.input: is required/],
    ["a step without isError", { steps: [{ input: 1, content: "x" }] }, /steps\[0\]\.isError/],
    ["a step with a non-string content", { steps: [{ input: 1, content: 5, isError: true }] }, /content/],
    ["an unknown option", { options: { limit: 3 }, steps: [step] }, /options\.limit: unknown option/],
    ["a zero option", { options: { listLimit: 0 }, steps: [step] }, /positive integer/],
    ["a non-canonical file path", { files: { "/memories/a/": "x" }, steps: [step] }, /canonical path/],
    ["a file path outside /memories", { files: { "/etc/x": "x" }, steps: [step] }, /canonical path/],
    ["a non-NFC final path", { final: { "/memories/cafe\u0301": "x" }, steps: [step] }, /canonical path/],
    ["a dot segment", { final: { "/memories/a/../b": "x" }, steps: [step] }, /canonical path/],
    ["text with a lone surrogate", { files: { "/memories/a": "\ud800" }, steps: [step] }, /lone surrogate/],
    ["bad base64", { files: { "/memories/a": { base64: "***" } }, steps: [step] }, /base64/],
    ["a negative count", { files: { "/memories/a": { repeat: "x", count: -1 } }, steps: [step] }, /count/],
    [
      "an unknown generator",
      { files: { "/memories/a": { zeros: 3 } }, steps: [step] },
      /unknown content form/,
    ],
    [
      "a bad lines field",
      { files: { "/memories/a": { lines: 2, step: 1 } }, steps: [step] },
      /unknown field/,
    ],
    ["absent not a list", { absent: "/memories/a", steps: [step] }, /absent/],
  ];
  for (const [what, value, message] of bad) {
    it(`rejects ${what}`, () => {
      expect(() => parseGoldenTranscript(value, "t", "t.json")).toThrow(GoldenFormatError);
      expect(() => parseGoldenTranscript(value, "t", "t.json")).toThrow(message);
    });
  }
});

describe("loadGoldenTranscripts", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const scratch = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), "golden-"));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return dir;
  };

  it("loads the *.json files of a directory in name order, named after the file", () => {
    const dir = scratch({
      "b.json": JSON.stringify({ steps: [step] }),
      "a.json": JSON.stringify({ description: "first", steps: [step] }),
      "notes.txt": "ignored",
    });
    const loaded = loadGoldenTranscripts(dir);
    expect(loaded.map((t) => [t.name, t.description])).toEqual([
      ["a", "first"],
      ["b", ""],
    ]);
  });

  it("names the file in errors", () => {
    const dir = scratch({ "broken.json": "{ not json" });
    expect(() => loadGoldenTranscripts(dir)).toThrow(/broken\.json: file: not valid JSON/);
  });

  it("loads every shipped transcript", () => {
    const shipped = loadGoldenTranscripts();
    expect(goldenDirectory.endsWith("golden/")).toBe(true);
    expect(shipped.length).toBeGreaterThanOrEqual(20);
    expect(new Set(shipped.map((t) => t.name)).size).toBe(shipped.length);
    const commands = new Set(
      shipped.flatMap((t) => t.steps.map((s) => (s.input as { command?: unknown } | null)?.command)),
    );
    for (const command of ["view", "create", "str_replace", "insert", "delete", "rename"]) {
      expect(commands.has(command), command).toBe(true);
    }
  });
});

describe("expectTree", () => {
  it("fails on contents that differ only in bytes that are not UTF-8", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/a.bin", new Uint8Array([0x61, 0xfe]), { ifAbsent: true });
    await expect(expectTree(store, { "/memories/a.bin": { base64: "Yf8=" } })).rejects.toThrow(
      /from byte 1: fe/,
    );
    await expectTree(store, { "/memories/a.bin": { base64: "Yf4=" } });
  });

  it("fails on a listed file that is not expected, and on a missing one", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/d/x.md", new TextEncoder().encode("x"), { ifAbsent: true });
    await expect(expectTree(store, {})).rejects.toThrow(/the files the listing shows/);
    await expect(expectTree(store, { "/memories/d/x.md": "x", "/memories/y.md": "y" })).rejects.toThrow();
    await expect(expectTree(store, { "/memories/d/x.md": "x" }, ["/memories/d"])).rejects.toThrow(/absent/);
    await expectTree(store, { "/memories/d/x.md": "x" }, ["/memories/y.md"]);
  });

  it("checks hidden files by reading them", async () => {
    const store = new InMemoryStore();
    await store.write("/memories/.h", new TextEncoder().encode("h"), { ifAbsent: true });
    await expectTree(store, { "/memories/.h": "h" });
    await expect(expectTree(store, { "/memories/.h": "H" })).rejects.toThrow(/content of \/memories\/\.h/);
    await expect(expectTree(store, { "/memories/.other": "h" })).rejects.toThrow(
      /read\(\/memories\/\.other\)/,
    );
  });
});
