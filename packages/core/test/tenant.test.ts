import { describe, expect, it } from "vitest";
import { checkTenant } from "../src/index.js";

describe("checkTenant", () => {
  it("accepts UUIDs, slugs and e-mail addresses", () => {
    for (const id of [
      "0b9c2f7e-8a4d-4f59-9a51-6f3c2d1e0a7b",
      "acme_corp.eu",
      "a+b@example.com",
      "x",
      "A".repeat(128),
    ]) {
      expect(checkTenant(id)).toBe(id);
    }
  });

  it("refuses separators, dots, NUL, non-ASCII, empty and over-long ids with a TypeError", () => {
    for (const id of ["a/b", "..", ".", "a\u0000b", "", "A".repeat(129), "é", "a b", "a\\b", "%2e"]) {
      expect(() => checkTenant(id)).toThrow(TypeError);
    }
    for (const id of [undefined, null, 5, {}])
      expect(() => checkTenant(id)).toThrow(/tenant must be a string/);
  });
});
