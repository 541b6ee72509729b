import type { MemoryStore } from "@mem/core";
import type { GoldenTranscript } from "../golden.js";
import { playTranscript } from "../transcript.js";
import type { Harness } from "./harness.js";

export function goldenSuite<S extends MemoryStore>(
  harness: Harness<S>,
  transcripts: readonly GoldenTranscript[],
): void {
  const { describe, it } = harness;
  describe("golden transcripts", () => {
    for (const transcript of transcripts) {
      it(
        transcript.description ? `${transcript.name}: ${transcript.description}` : transcript.name,
        () => harness.withStore((store) => playTranscript(store, transcript, undefined, harness.expect)),
        harness.timeout,
      );
    }
  });
}
