/**
 * The one place a search query becomes a matcher (SPEC §9): literal by default, RE2 syntax with `regex`,
 * always through `re2js`, whose time is linear in the text whatever the pattern. Every surface (the
 * `memory_search` tool, `searchMemory`, the `mem grep` command) compiles its queries here.
 */
import { RE2JS, RE2JSException } from "re2js";
import { msg } from "../messages.js";

/** The longest query, in UTF-16 code units (the unit of every character budget of the tool). */
export const MAX_QUERY_LENGTH = 1000;

/** A query ready to run: its matcher and, for a literal query, the text an index looks for. */
export interface CompiledQuery {
  readonly query: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  /** For a literal query: `searchIndexForm(query)`. */
  readonly needle?: string;
  /** Whether one line (without its `\n`) holds a match. */
  matches(line: string): boolean;
  /**
   * Where `line` matches, left to right, at most `max` ranges `[start, end)` in UTF-16 code units (for
   * highlighting hits); an empty match moves on by one character.
   */
  find(line: string, max: number): Array<readonly [start: number, end: number]>;
}

export type QueryCheck = { ok: true; query: CompiledQuery } | { ok: false; error: string };

/** The query as results quote it: in double quotes, JSON-escaped. */
export const searchQuoted = (query: string): string => JSON.stringify(query);

/**
 * Compiles a query, or gives SPEC §9's error result text for an empty query, one over 1,000 characters
 * or an invalid regular expression.
 */
export function compileQuery(query: string, regex: boolean, caseSensitive: boolean): QueryCheck {
  if (query === "") return { ok: false, error: msg.searchEmptyQuery() };
  if (query.length > MAX_QUERY_LENGTH) return { ok: false, error: msg.searchLongQuery() };
  const flags = caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
  let re: RE2JS;
  try {
    re = RE2JS.compile(regex ? query : RE2JS.quote(query), flags);
  } catch (error) {
    return { ok: false, error: msg.searchBadRegex(searchQuoted(query), reasonOf(error)) };
  }
  // A line never holds a `\n`, so a literal query with one matches nothing.
  const never = !regex && query.includes("\n");
  return {
    ok: true,
    query: {
      query,
      regex,
      caseSensitive,
      ...(regex ? {} : { needle: searchIndexForm(query) }),
      matches: (line) => !never && re.test(line),
      find: (line, max) => {
        const found: Array<readonly [number, number]> = [];
        if (never) return found;
        const m = re.matcher(line);
        for (let from = 0; found.length < max && from <= line.length && m.find(from); ) {
          const start = m.start();
          const end = m.end();
          found.push([start, end]);
          from = end > start ? end : end + 1;
        }
        return found;
      },
    },
  };
}

const reasonOf = (error: unknown): string => {
  if (error instanceof RE2JSException) {
    const described = (error as { getDescription?: () => string }).getDescription?.();
    return described || error.message;
  }
  return "it could not be compiled";
};

/**
 * Text in index form: each character replaced by one representative of its case class, so that a literal
 * query matches a line, with or without `caseSensitive`, only where the index form of the query occurs in
 * the index form of the line. Stores keep their index over this form and look up `SearchRequest.needle`;
 * the classes are at least as wide as the regular expression engine's case folding (a test checks every
 * cased character), so an index never misses a line. It keeps the length of the text in code points.
 */
export const searchIndexForm = (text: string): string =>
  ASCII.test(text) ? text.toLowerCase() : text.replace(FOLDED, foldCharacter);

const ASCII = /^[\x00-\x7f]*$/;
/** Every character that may fold to another: ASCII capitals and everything outside ASCII. */
const FOLDED = /[A-Z]|[^\x00-\x7f]/gu;

/** Case classes of the engine that upper- and lower-casing do not join (a test finds any other). */
const folds = new Map<string, string>([
  ["\u1fd3", "\u0390"],
  ["\u1fe3", "\u03b0"],
  ["\ufb05", "\ufb06"],
]);

const single = (s: string): boolean => s.length === 1 || (s.length === 2 && s.codePointAt(0)! > 0xffff);

function foldCharacter(c: string): string {
  const known = folds.get(c);
  if (known !== undefined) return known;
  const upper = c.toUpperCase();
  const lower = (single(upper) ? upper : c).toLowerCase();
  const folded = single(lower) ? lower : c;
  folds.set(c, folded);
  return folded;
}
