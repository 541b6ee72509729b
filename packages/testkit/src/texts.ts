/**
 * Texts the stores' tests share, and the windows their paging tests view of them.
 */
/**
 * `n` numbered lines tagged `tag`, each with a final newline, about 60 bytes a line: 3,000 lines (about
 * 180 KB) make a file large enough for the stores to keep between `view_range` windows.
 */
export const numberedText = (tag: string, n: number): string =>
  `${Array.from({ length: n }, (_, i) => `${tag} line ${i + 1} ${"x".repeat(40)}`).join("\n")}\n`;

/** Windows of a 12,000-line `numberedText` file viewed after a first one: its start, to the end (-1), past the end, one line. */
export const LATER_WINDOWS: readonly [number, number][] = [
  [1, 100],
  [11_950, -1],
  [12_001, 12_010],
  [7, 7],
];

/**
 * Views each of `windows` through the store under test and through a reference, one window after the
 * other: what each answered, for the test to compare.
 */
export const viewBoth = async (
  windows: readonly [number, number][],
  view: (range: [number, number]) => Promise<unknown>,
  reference: (range: [number, number]) => Promise<unknown>,
): Promise<{ got: unknown[]; expected: unknown[] }> => {
  const got: unknown[] = [];
  const expected: unknown[] = [];
  for (const range of windows) {
    got.push(await view(range));
    expected.push(await reference(range));
  }
  return { got, expected };
};
