/**
 * Search of one tenant's files: a substring or a regular expression (see `matcher.ts`), line by line,
 * results capped, paged by file, stopped as soon as the request goes away or the server closes. It gives
 * the event loop back between files and every few thousand lines, so the server keeps answering.
 */
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { isListedName, type MemoryStore, segmentsOf } from "@mem/core";
import { enumerateFiles } from "../files.js";
import { compileMatcher, type MatchRange } from "./matcher.js";

export interface SearchHit {
  readonly path: string;
  readonly line: number;
  readonly text: string;
  /** Where `text` matched, `[start, end)` in UTF-16 code units. */
  readonly marks: readonly MatchRange[];
}

export interface SearchPage {
  readonly hits: SearchHit[];
  /** Pass as `cursor` to continue; absent when every file was searched. */
  readonly next?: string;
  /** Files searched by this page, and files there are to search in all. */
  readonly searched: number;
  readonly total: number;
}

const MAX_LINE_CHARS = 300;
const MAX_HITS_PER_FILE = 200;
const MAX_MARKS_PER_LINE = 20;
const LINES_PER_TURN = 2000;
const decoder = new TextDecoder();

/** Whether `compileMatcher` accepts `query` (a `TypeError` otherwise), checked before any storage call. */
export const checkQuery = (query: string, regex: boolean): void => {
  compileMatcher(query, regex);
};

export const search = async (
  store: MemoryStore,
  options: {
    query: string;
    regex: boolean;
    hidden: boolean;
    cursor: number;
    limit: number;
    /** Most files this page reads: a page can end early so that the caller shows progress. */
    files?: number;
  },
  aborted: () => boolean,
): Promise<SearchPage> => {
  const matcher = compileMatcher(options.query, options.regex);
  const { files } = await enumerateFiles(store);
  const shown = options.hidden ? files : files.filter((f) => segmentsOf(f.path).every(isListedName));
  const hits: SearchHit[] = [];
  let index = options.cursor;
  const end = Math.min(shown.length, options.cursor + (options.files ?? shown.length));
  for (; index < end && hits.length < options.limit; index++) {
    await yieldToLoop();
    if (aborted()) break;
    const file = shown[index] as (typeof shown)[number];
    const data = await store.read(file.path);
    if (aborted()) break;
    if (!data) continue;
    const lines = decoder.decode(data.data).split("\n");
    // A file is searched to its end (up to MAX_HITS_PER_FILE), so that the next page starts at a file.
    for (let n = 0, inFile = 0; n < lines.length && inFile < MAX_HITS_PER_FILE; n++) {
      if (n > 0 && n % LINES_PER_TURN === 0) {
        await yieldToLoop();
        if (aborted()) break;
      }
      const line = lines[n] as string;
      const found = matcher.find(line, MAX_MARKS_PER_LINE);
      if (found.length === 0) continue;
      inFile++;
      const text = line.slice(0, MAX_LINE_CHARS);
      const marks = found
        .filter(([start]) => start < text.length)
        .map(([start, end]): MatchRange => [start, Math.min(end, text.length)]);
      hits.push({ path: file.path, line: n + 1, text, marks });
    }
    if (aborted()) break;
  }
  return {
    hits,
    searched: index - options.cursor,
    total: shown.length,
    ...(index < shown.length ? { next: String(index) } : {}),
  };
};
