/** Times as people say them: "3 minutes ago", with the exact time for a tooltip. */
const words = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Number.POSITIVE_INFINITY],
];

/** `time` (ms since the epoch) relative to `now`, in words. */
export const ago = (time: number, now = Date.now()): string => {
  let amount = (time - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) return words.format(Math.round(amount), unit);
    amount /= size;
  }
  return new Date(time).toLocaleString();
};

/** The exact time, for a title. */
export const exact = (time: number): string => new Date(time).toLocaleString();
