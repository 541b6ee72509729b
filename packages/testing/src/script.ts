/** Builders of Claude's turns for a script. */
import type { ScriptedBlock, ScriptedTurn } from "./types.js";

/** A text block of a reply. */
export const text = (value: string): ScriptedBlock => ({ type: "text", text: value });

/** A tool call of a reply: `name` with `input` (the server gives it its id). */
export const toolUse = (name: string, input: Record<string, unknown>): ScriptedBlock => ({
  type: "tool_use",
  name,
  input,
});

/**
 * A script of memory tool calls: one turn per entry of `turns` (a call, or a list of calls made in one
 * turn), each calling the tool `memory`, then a last turn that says `finalText`.
 */
export const memoryScript = (
  turns: readonly (Record<string, unknown> | readonly Record<string, unknown>[])[],
  finalText: string,
): ScriptedTurn[] => [
  ...turns.map((turn) => (Array.isArray(turn) ? turn : [turn]).map((input) => toolUse("memory", input))),
  [text(finalText)],
];
