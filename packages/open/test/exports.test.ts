import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exportedNames, undocumentedNames } from "@mem/testkit";
import { describe, expect, it } from "vitest";

// The public surface is what the README documents: a name added to or removed from the entry point must
// be added to or removed from the README and from this list.
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("public surface", { timeout: 120_000 }, () => {
  it("@mem/open exports exactly the names its README documents", () => {
    const names = exportedNames(fileURLToPath(new URL("../src/index.ts", import.meta.url)));
    expect(names).toEqual([
      "AdapterPackage",
      "AnthropicSpec",
      "Backend",
      "DEFAULT_PREFIX",
      "FsSpec",
      "KEY_VARIABLE",
      "KeyOptions",
      "MountFileEntry",
      "NoStoreError",
      "OpenContext",
      "OpenMountsOptions",
      "OpenStoreOptions",
      "PlainStoreSpec",
      "PostgresSpec",
      "RedisSpec",
      "RegisteredSpec",
      "S3Spec",
      "STORE_URL_FORMS",
      "SchemeFactory",
      "SchemeOptions",
      "SqliteSpec",
      "StoreCount",
      "StoreSetupError",
      "StoreSpec",
      "StoreUrlError",
      "TENANT_PLACEHOLDER",
      "countStore",
      "decodeKey",
      "describeStore",
      "importAdapter",
      "keyOptions",
      "maskUrl",
      "openMounts",
      "openStore",
      "parseMountTable",
      "parseStoreUrl",
      "registerScheme",
      "storeUrlForms",
      "withKeptHistory",
    ]);
    expect(undocumentedNames(readme, names)).toEqual([]);
  });
});
