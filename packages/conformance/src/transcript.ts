/** Plays a golden transcript against a store and checks every result and the final tree. */
import { executeCommand, type MemoryStore } from "@mem/core";
import { expect } from "vitest";
import { materialize } from "./content.js";
import type { GoldenTranscript } from "./golden.js";
import { expectTree } from "./store-tree.js";

const MAX_SHOWN_INPUT = 300;

const showInput = (input: unknown): string => {
  const text = JSON.stringify(input) ?? String(input);
  return text.length > MAX_SHOWN_INPUT ? `${text.slice(0, MAX_SHOWN_INPUT)}...` : text;
};

/**
 * Seeds `store` with the transcript's files, runs each step through `executeCommand`, compares each
 * result with the expected one exactly, then checks the final tree.
 *
 * @example
 * ```ts
 * for (const t of loadGoldenTranscripts()) await playTranscript(new InMemoryStore(), t);
 * ```
 */
export async function playTranscript(store: MemoryStore, transcript: GoldenTranscript): Promise<void> {
  for (const [path, spec] of Object.entries(transcript.files)) {
    await store.write(path, materialize(spec), { ifAbsent: true });
  }
  for (const [i, step] of transcript.steps.entries()) {
    const result = await executeCommand(store, step.input, transcript.options);
    const label = `${transcript.name} step ${i + 1}: ${showInput(step.input)}${step.note ? ` (${step.note})` : ""}`;
    expect({ content: result.content, isError: result.isError }, label).toEqual({
      content: step.content,
      isError: step.isError,
    });
  }
  await expectTree(store, transcript.final, transcript.absent);
}
