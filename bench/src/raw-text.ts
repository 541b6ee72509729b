/** The little text work the raw baselines do: slicing lines for view_range, joining listing lines. */

export const sliceLines = (text: string, range: unknown): string => {
  if (!Array.isArray(range)) return text;
  const [start, end] = range as [number, number];
  const lines = text.split("\n");
  return lines.slice(start - 1, end === -1 ? lines.length : end).join("\n");
};

export const listingText = (path: string, entries: readonly { size: number; path: string }[]): string =>
  [path, ...entries.map((entry) => `${entry.size}\t${entry.path}`)].join("\n");
