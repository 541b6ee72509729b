/**
 * `searchMemory` (SPEC §9): the lines that match a query, in path (byte) order then line, through the
 * store's own index when it has one, otherwise by reading the files within a budget.
 */
import { NotFoundError } from "../errors.js";
import { validatePath } from "../path.js";
import type { MemoryStore, SearchFile } from "../store.js";
import { decodeUtf8 } from "../text.js";
import { isListedName, isSameOrInside, ROOT, segmentsOf } from "../tree.js";
import { type CompiledQuery, compileQuery } from "./pattern.js";

export interface SearchOptions {
  /** The text to find within one line; with `regex`, a regular expression in RE2 syntax. */
  query: string;
  /** Default `false`: the query is literal text. */
  regex?: boolean;
  /** The directory or file searched. Default `/memories`. */
  path?: string;
  /** Default `false`: letter case is ignored. */
  caseSensitive?: boolean;
  /** Most hits returned, 1 to 10,000. Default 1,000; the others are counted in `more`. */
  limit?: number;
  /** Without a native index: most files read before the search stops. Default 10,000. */
  maxFilesRead?: number;
  /** Without a native index: most bytes read before the search stops. Default 64 MiB. */
  maxBytesRead?: number;
}

/** One matching line: the file's canonical path, the 1-based line number, the line without its `\n`. */
export interface SearchHit {
  path: string;
  line: number;
  text: string;
}

export interface SearchResult {
  /** The first `limit` matching lines, by path (byte order) then line. */
  hits: SearchHit[];
  /** How many more matching lines were found beyond `limit`. */
  more: number;
  /** Set when the read budget cut the search short: how many files and bytes were read. */
  stopped?: { files: number; bytes: number };
}

export const DEFAULT_SEARCH_LIMIT = 1000;
export const MAX_SEARCH_LIMIT = 10_000;
export const DEFAULT_SEARCH_FILES = 10_000;
export const DEFAULT_SEARCH_BYTES = 64 * 1024 * 1024;
/** Deeper than any valid path can go (1,024 bytes, at least two per level). */
const ALL_LEVELS = 1024;

/** What the search runs with once the input is checked. */
export interface SearchPlan {
  path: string;
  query: CompiledQuery;
  limit: number;
  maxFiles: number;
  maxBytes: number;
}

/**
 * Searches the text of the memory's files. Invalid options (an empty query or one over 1,000
 * characters, an invalid regular expression, a path outside `/memories`, a `limit` out of range)
 * reject with a `TypeError` naming them; a missing `path` with `NotFoundError`; storage failures with the
 * store's error.
 *
 * @example
 * ```ts
 * import { InMemoryStore, executeCommand, searchMemory } from "@mem/core";
 * const store = new InMemoryStore();
 * await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "Tea: green\n" });
 * const { hits } = await searchMemory(store, { query: "tea" });
 * // [{ path: "/memories/a.md", line: 1, text: "Tea: green" }]
 * ```
 */
export async function searchMemory(store: MemoryStore, options: SearchOptions): Promise<SearchResult> {
  const plan = searchPlan(store, options);
  const result = await runSearch(store, plan);
  if (!result) throw new NotFoundError(plan.path);
  return result;
}

const fail = (what: string): never => {
  throw new TypeError(`searchMemory: ${what}`);
};

const count = (name: string, value: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER): number => {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > max) {
    fail(`\`${name}\` must be an integer from 1 to ${max}`);
  }
  return value as number;
};

const flag = (name: string, value: unknown): boolean => {
  if (value !== undefined && typeof value !== "boolean") fail(`\`${name}\` must be a boolean`);
  return value === true;
};

function searchPlan(store: MemoryStore, options: SearchOptions): SearchPlan {
  if (typeof options !== "object" || options === null) fail("the options must be an object");
  if (typeof options.query !== "string") fail("`query` must be a string");
  const regex = flag("regex", options.regex);
  const caseSensitive = flag("caseSensitive", options.caseSensitive);
  const limit = count("limit", options.limit, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
  const maxFiles = count("maxFilesRead", options.maxFilesRead, DEFAULT_SEARCH_FILES);
  const maxBytes = count("maxBytesRead", options.maxBytesRead, DEFAULT_SEARCH_BYTES);
  const rawPath = options.path ?? ROOT;
  if (typeof rawPath !== "string") fail("`path` must be a string");
  const compiled = compileQuery(options.query, regex, caseSensitive);
  if (!compiled.ok) fail(compiled.error.replace(/^Error: /, ""));
  const checked = validatePath(rawPath, { isReservedName: store.isReservedName?.bind(store) });
  if (!checked.ok) fail(checked.error.replace(/^Error: /, ""));
  return {
    path: (checked as { path: string }).path,
    query: (compiled as { query: CompiledQuery }).query,
    limit,
    maxFiles,
    maxBytes,
  };
}

/** Whether a file at `path` may be searched: no hidden, `node_modules` or reserved name on the way. */
const searchable = (store: MemoryStore, path: string): boolean =>
  segmentsOf(path).every((name) => isListedName(name) && store.isReservedName?.(name) !== true);

/** Runs a checked search; `null` when nothing is at the path. */
export async function runSearch(store: MemoryStore, plan: SearchPlan): Promise<SearchResult | null> {
  const { path, query } = plan;
  const stat = path === ROOT ? ({ kind: "directory" } as const) : await store.stat(path);
  if (!stat) return null;
  const found = new Found(plan.limit);
  if (!searchable(store, path)) return found.result();
  if (store.search) {
    const request = {
      path,
      query: query.query,
      regex: query.regex,
      caseSensitive: query.caseSensitive,
      ...(query.needle === undefined ? {} : { needle: query.needle }),
    };
    const files = await store.search(request);
    if (files) {
      const kept = files.filter((file) => isSameOrInside(file.path, path) && searchable(store, file.path));
      for (const file of kept.sort(byPath)) found.file(file, query);
      return found.result();
    }
  }
  return walk(store, plan, stat.kind, found);
}

/** The fallback: every listed file at or beneath the path, read one by one in path order, within budget. */
async function walk(
  store: MemoryStore,
  plan: SearchPlan,
  kind: "file" | "directory",
  found: Found,
): Promise<SearchResult> {
  const { path } = plan;
  let files: { path: string; size: number }[];
  if (kind === "file") files = [{ path, size: 0 }];
  else {
    const listing = await store.list(path, ALL_LEVELS);
    files = (listing?.entries ?? [])
      .filter((entry) => entry.kind === "file" && searchable(store, entry.path))
      .sort(byPath);
  }
  let read = 0;
  let bytes = 0;
  for (const entry of files) {
    if (read >= plan.maxFiles || bytes + entry.size > plan.maxBytes) {
      return found.result({ files: read, bytes });
    }
    const file = await store.read(entry.path);
    read += 1;
    if (!file) continue; // deleted since the listing
    bytes += file.data.length;
    found.file({ path: entry.path, data: file.data }, plan.query);
  }
  return found.result();
}

/** Hits in the order they are found (files in path order), the first `limit` kept, the rest counted. */
class Found {
  #hits: SearchHit[] = [];
  #more = 0;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  file(file: SearchFile, query: CompiledQuery): void {
    const text = decodeUtf8(file.data);
    if (text === null || text === "") return; // not text: nothing to search
    // A literal query never spans lines, so a file without a match anywhere has none in any line.
    if (!query.regex && !query.matches(text)) return;
    let start = 0;
    let line = 1;
    while (start < text.length) {
      const newline = text.indexOf("\n", start);
      const end = newline === -1 ? text.length : newline;
      const content = text.slice(start, end);
      if (query.matches(content)) {
        if (this.#hits.length < this.#limit) this.#hits.push({ path: file.path, line, text: content });
        else this.#more += 1;
      }
      start = end + 1;
      line += 1;
    }
  }

  result(stopped?: { files: number; bytes: number }): SearchResult {
    return { hits: this.#hits, more: this.#more, ...(stopped ? { stopped } : {}) };
  }
}

/** Canonical paths in byte (code point) order, which UTF-16 order differs from past U+D7FF. */
const byPath = (a: { path: string }, b: { path: string }): number => compareCodePoints(a.path, b.path);

export const compareCodePoints = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unitRank(x) - unitRank(y);
  }
  return a.length - b.length;
};

/** Surrogates (code points past U+FFFF) rank after U+E000–U+FFFF. */
const unitRank = (unit: number): number =>
  unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
