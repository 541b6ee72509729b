import { describe, expect, it } from "vitest";
import { createContext, type Stream } from "../src/context.js";
import { startProgress } from "../src/progress.js";

/** A stream that keeps what is written to it. */
const capture = (isTTY: boolean): Stream & { text: string } => {
  const stream = {
    isTTY,
    text: "",
    write(chunk: string | Uint8Array) {
      stream.text += String(chunk);
      return true;
    },
  };
  return stream;
};

const contextOn = (stderr: Stream) =>
  createContext({ stdout: capture(false), stderr, env: {}, cwd: process.cwd() });

describe("progress bars (cli-progress, loaded when a bar starts)", () => {
  it("draws on a terminal: the label, files done of the total and the size", () => {
    const stderr = capture(true);
    const progress = startProgress(contextOn(stderr), "export", 2, false);
    progress.tick(1024);
    progress.tick(1024);
    progress.stop();
    expect(stderr.text).toContain("export");
    expect(stderr.text).toContain("0/2 files | 0B");
  });

  it("draws nothing when stderr is not a terminal, or with --json", () => {
    for (const [stderr, json] of [
      [capture(false), false],
      [capture(true), true],
    ] as const) {
      const progress = startProgress(contextOn(stderr), "export", 2, json);
      progress.tick(10);
      progress.stop();
      expect(stderr.text).toBe("");
    }
  });
});
