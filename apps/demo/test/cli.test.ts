import { describe, expect, it } from "vitest";
import { parseCli, UsageError } from "../src/cli.js";

describe("parseCli", () => {
  it("has defaults for everything", () => {
    expect(parseCli([])).toEqual({
      store: "fs:./memory-demo",
      model: "claude-sonnet-5-5",
      keep: false,
      offline: false,
      help: false,
    });
  });

  it("reads the options, also after the -- that pnpm passes on", () => {
    expect(parseCli(["--", "--store", "redis://h:1/p", "--keep", "--model", "m", "--offline"])).toEqual({
      store: "redis://h:1/p",
      model: "m",
      keep: true,
      offline: true,
      help: false,
    });
    expect(parseCli(["-h"]).help).toBe(true);
  });

  it("rejects unknown options and stray arguments", () => {
    expect(() => parseCli(["--stor", "x"])).toThrow(UsageError);
    expect(() => parseCli(["fs:./x"])).toThrow(UsageError);
    expect(() => parseCli(["--store"])).toThrow(UsageError);
  });
});
