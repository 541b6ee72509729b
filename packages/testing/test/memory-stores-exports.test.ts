import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exportedNames, undocumentedNames } from "@mem/testkit";
import { describe, expect, it } from "vitest";

// The public surface is what the README documents: a name added to or removed from an entry point must
// be added to or removed from the README and from this list.
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("public surface", { timeout: 120_000 }, () => {
  it("@mem/testing/memory-stores exports exactly the names its README documents", () => {
    const names = exportedNames(fileURLToPath(new URL("../src/memory-stores/index.ts", import.meta.url)));
    expect(names).toEqual([
      "ApiError",
      "MAX_CONTENT_BYTES",
      "MAX_PATH_BYTES",
      "MAX_SEGMENTS",
      "MEMORY_STORES_BETAS",
      "MemoryRecord",
      "MemoryStoresModel",
      "RecordedRequest",
      "ScriptedActor",
      "ScriptedFault",
      "ScriptedMemoryStores",
      "ScriptedMemoryStoresOptions",
      "StoreRecord",
      "VersionRecord",
      "pathProblem",
      "startScriptedMemoryStores",
    ]);
    expect(undocumentedNames(readme, names)).toEqual([]);
  });
});
