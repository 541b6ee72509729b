/** Plays a golden transcript against a store and checks every result and the final tree. */
import { executeCommand, type MemoryStore, type ToolResult } from "@mem/core";
import { expect as vitestExpect } from "vitest";
import { materialize } from "./content.js";
import type { GoldenTranscript, TranscriptOptions } from "./golden.js";
import { expectTree } from "./store-tree.js";

const MAX_SHOWN_INPUT = 300;

const showInput = (input: unknown): string => {
  const text = JSON.stringify(input) ?? String(input);
  return text.length > MAX_SHOWN_INPUT ? `${text.slice(0, MAX_SHOWN_INPUT)}...` : text;
};

/**
 * Runs one step's input with the transcript's options and returns the result the model would receive.
 * Replace it to play transcripts through another layer around the engine (a tool protocol, a network
 * hop); the default calls `executeCommand` on the store directly.
 */
export type TranscriptExecutor = (input: unknown, options: TranscriptOptions) => Promise<ToolResult>;

/**
 * Seeds `store` with the transcript's files, runs each step through `executeCommand` (or `execute`),
 * compares each result with the expected one exactly, then checks the final tree of `store`. Asserts with
 * `expect` (vitest's unless another runner's is given).
 *
 * @example
 * ```ts
 * for (const t of loadGoldenTranscripts()) await playTranscript(new InMemoryStore(), t);
 * ```
 */
export async function playTranscript(
  store: MemoryStore,
  transcript: GoldenTranscript,
  execute: TranscriptExecutor = (input, options) => executeCommand(store, input, options),
  expect: typeof vitestExpect = vitestExpect,
): Promise<void> {
  for (const [path, spec] of Object.entries(transcript.files)) {
    await store.write(path, materialize(spec), { ifAbsent: true });
  }
  for (const [i, step] of transcript.steps.entries()) {
    const result = await execute(step.input, transcript.options);
    const label = `${transcript.name} step ${i + 1}: ${showInput(step.input)}${step.note ? ` (${step.note})` : ""}`;
    const image = result.image ? { mediaType: result.image.mediaType, data: result.image.data } : undefined;
    expect({ content: result.content, isError: result.isError, image }, label).toEqual({
      content: step.content,
      isError: step.isError,
      image: step.image,
    });
  }
  await expectTree(store, transcript.final, transcript.absent, expect);
}
