import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as memoryStores from "../src/memory-stores/index.js";

// The public surface is what the README documents: a name added to or removed from an entry point must
// be added to or removed from the README and from this list. (Not the testkit's surface check: the
// testkit depends on this package.)
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const entry = readFileSync(new URL("../src/memory-stores/index.ts", import.meta.url), "utf8");

const VALUES = [
  "ApiError",
  "MAX_CONTENT_BYTES",
  "MAX_PATH_BYTES",
  "MAX_SEGMENTS",
  "MEMORY_STORES_BETAS",
  "MemoryStoresModel",
  "pathProblem",
  "startScriptedMemoryStores",
];
const TYPES = [
  "MemoryRecord",
  "RecordedRequest",
  "ScriptedActor",
  "ScriptedFault",
  "ScriptedMemoryStores",
  "ScriptedMemoryStoresOptions",
  "StoreRecord",
  "VersionRecord",
];

describe("public surface", () => {
  it("@mem/testing/memory-stores exports exactly these values and types", () => {
    expect(Object.keys(memoryStores).sort()).toEqual([...VALUES].sort());
    const named = [...entry.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
      (m[1] ?? "")
        .split(",")
        .map((name) => name.trim().replace(/^type /, ""))
        .filter((name) => name !== ""),
    );
    expect([...new Set(named)].sort()).toEqual([...VALUES, ...TYPES].sort());
  });

  it("the README names every one as code", () => {
    for (const name of [...VALUES, ...TYPES]) expect(readme).toMatch(new RegExp(`\`[^\`\\n]*\\b${name}\\b`));
  });
});
