import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUtf8, isValidUtf8, utf8Length } from "../src/text.js";

// Core uses only web APIs for UTF-8; Node's own functions are the reference here.
describe("UTF-8 helpers", () => {
  it("measures strings as Node does, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        expect(utf8Length(s)).toBe(Buffer.byteLength(s, "utf8"));
      }),
    );
    expect(utf8Length("\ud800x")).toBe(4);
  });

  it("decodes exactly the valid UTF-8 byte sequences, keeping a BOM", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 16 }), (bytes) => {
        const text = decodeUtf8(bytes);
        expect(text !== null).toBe(isUtf8(bytes));
        if (text !== null) expect(text).toBe(Buffer.from(bytes).toString("utf8"));
      }),
      { numRuns: 2000 },
    );
    expect(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe("\ufeffa");
    expect(decodeUtf8(new Uint8Array([0xed, 0xa0, 0x80]))).toBeNull();
  });

  it("checks UTF-8 validity by the same rule as the strict decode", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 16 }), (bytes) => {
        expect(isValidUtf8(bytes)).toBe(decodeUtf8(bytes) !== null);
      }),
      { numRuns: 2000 },
    );
    expect(isValidUtf8(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe(true);
    expect(isValidUtf8(new Uint8Array([0xed, 0xa0, 0x80]))).toBe(false);
    expect(isValidUtf8(new Uint8Array([0xc0, 0x80]))).toBe(false);
  });
});
