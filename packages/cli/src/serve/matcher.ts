/**
 * The one place the console matches search text, on core's query compiler (`compileQuery`, the `re2js`
 * engine every surface uses: linear time whatever the pattern, so no `(.*)*X` can hold the server's event
 * loop). The console's search is case-sensitive.
 */
import { compileQuery } from "@mem/core";

/** Where a line matched: `[start, end)` in UTF-16 code units. */
export type MatchRange = readonly [start: number, end: number];

export interface LineMatcher {
  /** The matches in `line`, left to right, at most `max`; empty when it does not match. */
  find(line: string, max: number): MatchRange[];
}

/** A matcher for `query`; a `TypeError` for a query core refuses (an invalid regular expression...). */
export const compileMatcher = (query: string, regex: boolean): LineMatcher => {
  const compiled = compileQuery(query, regex, true);
  if (!compiled.ok) {
    const refused = compiled.error.replace(/^Error: /, "");
    throw new TypeError(
      regex && refused.startsWith("Invalid regular expression")
        ? `not a regular expression: ${refused}`
        : refused,
    );
  }
  return { find: (line, max) => compiled.query.find(line, max) };
};
