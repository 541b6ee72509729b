/** Human-readable sizes for directory listings (SPEC §4, view). */

const UNITS = ["K", "M", "G", "T"] as const;

/**
 * @example
 * ```ts
 * formatSize(512)     // "512B"
 * formatSize(1536)    // "1.5K"
 * formatSize(1048575) // "1.0M" (1024.0K rounds up a unit)
 * ```
 */
export const formatSize = (bytes: number): string => {
  if (bytes < 1024) return `${bytes}B`;
  let unit = 0;
  let value = bytes / 1024;
  while (unit < UNITS.length - 1 && value >= 1024) {
    value /= 1024;
    unit++;
  }
  let text = value.toFixed(1);
  if (text === "1024.0" && unit < UNITS.length - 1) {
    unit++;
    text = (value / 1024).toFixed(1);
  }
  return `${text}${UNITS[unit]}`;
};
