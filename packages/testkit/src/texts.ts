/**
 * Texts the stores' tests share.
 */

/**
 * `n` numbered lines tagged `tag`, each with a final newline, about 60 bytes a line: 3,000 lines (about
 * 180 KB) make a file large enough for the stores to keep between `view_range` windows.
 */
export const numberedText = (tag: string, n: number): string =>
  `${Array.from({ length: n }, (_, i) => `${tag} line ${i + 1} ${"x".repeat(40)}`).join("\n")}\n`;
