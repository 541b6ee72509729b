/**
 * The one place the console matches search text: a substring, or a regular expression run by `re2js`, a
 * linear-time engine (RE2's), so that no pattern can hold the server's event loop (no backtracking, no
 * `(.*)*X` taking exponential time). Kept apart so that the search can move to a shared implementation.
 */
import { RE2JS } from "re2js";

/** Where a line matched: `[start, end)` in UTF-16 code units. */
export type MatchRange = readonly [start: number, end: number];

export interface LineMatcher {
  /** The matches in `line`, left to right, at most `max`; empty when it does not match. */
  find(line: string, max: number): MatchRange[];
}

/** A matcher for `query`; a `TypeError` for a regular expression that does not compile. */
export const compileMatcher = (query: string, regex: boolean): LineMatcher => {
  if (!regex) {
    return {
      find(line, max) {
        const found: MatchRange[] = [];
        for (let at = line.indexOf(query); at !== -1 && found.length < max; ) {
          found.push([at, at + query.length]);
          at = line.indexOf(query, at + Math.max(query.length, 1));
        }
        return found;
      },
    };
  }
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(query);
  } catch (error) {
    throw new TypeError(`not a regular expression: ${(error as Error).message}`);
  }
  return {
    find(line, max) {
      const found: MatchRange[] = [];
      const m = pattern.matcher(line);
      let from = 0;
      while (found.length < max && from <= line.length && m.find(from)) {
        const start = m.start();
        const end = m.end();
        found.push([start, end]);
        // An empty match moves on by one, or the same place would match forever.
        from = end > start ? end : end + 1;
      }
      return found;
    },
  };
};
