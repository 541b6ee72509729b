import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exportedNames, undocumentedNames } from "@mem/testkit";
import { describe, expect, it } from "vitest";

// The public surface is what the README documents: a name added to or removed from an entry point must
// be added to or removed from the README and from this list.
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("public surface", { timeout: 120_000 }, () => {
  it("@mem/postgres exports exactly the names its README documents", () => {
    const names = exportedNames(fileURLToPath(new URL("../src/index.ts", import.meta.url)));
    expect(names).toEqual([
      "DEFAULT_SCHEMA",
      "DEFAULT_TABLE",
      "MAX_TABLE_LENGTH",
      "PostgresStore",
      "PostgresStoreOptions",
      "SCHEMA_VERSION",
      "SchemaSqlOptions",
      "checkIdentifier",
      "schemaSql",
    ]);
    expect(undocumentedNames(readme, names)).toEqual([]);
  });
});
