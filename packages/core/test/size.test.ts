import { describe, expect, it } from "vitest";
import { formatSize } from "../src/size.js";

describe("formatSize", () => {
  it.each([
    [0, "0B"],
    [512, "512B"],
    [1023, "1023B"],
    [1024, "1.0K"],
    [1536, "1.5K"],
    [4096, "4.0K"],
    [10 * 1024, "10.0K"],
    [1024 * 1024 - 1, "1.0M"],
    [1048525, "1.0M"],
    [1048524, "1023.9K"],
    [Math.round(1.2 * 1024 * 1024), "1.2M"],
    [1024 ** 3, "1.0G"],
    [1024 ** 4, "1.0T"],
    [5000 * 1024 ** 4, "5000.0T"],
  ])("%i bytes → %s", (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });
});
