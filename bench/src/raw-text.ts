/**
 * What the raw baselines share: their results, the guard that turns a thrown error into an error result,
 * and the little text work they do (slicing lines for view_range, joining listing lines).
 */
import type { ToolInput, ToolOutcome } from "./subject.js";

export const ok = (content: string): ToolOutcome => ({ content, isError: false });
export const fail = (content: string): ToolOutcome => ({ content, isError: true });

/** `run`, with anything it throws reported as an error result (its errno code, or its message). */
export const guarded =
  (run: (input: ToolInput) => Promise<ToolOutcome>) =>
  async (input: ToolInput): Promise<ToolOutcome> => {
    try {
      return await run(input);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return fail(typeof code === "string" ? code : error instanceof Error ? error.message : String(error));
    }
  };

export const sliceLines = (text: string, range: unknown): string => {
  if (!Array.isArray(range)) return text;
  const [start, end] = range as [number, number];
  const lines = text.split("\n");
  return lines.slice(start - 1, end === -1 ? lines.length : end).join("\n");
};

export const listingText = (path: string, entries: readonly { size: number; path: string }[]): string =>
  [path, ...entries.map((entry) => `${entry.size}\t${entry.path}`)].join("\n");
