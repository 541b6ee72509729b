/**
 * Search of one tenant's files: a substring or a regular expression, line by line, results capped,
 * paged by file, stopped as soon as the request goes away.
 */
import { isListedName, type MemoryStore, segmentsOf } from "@mem/core";
import { enumerateFiles } from "../files.js";

export interface SearchHit {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

export interface SearchPage {
  readonly hits: SearchHit[];
  /** Pass as `cursor` to continue; absent when every file was searched. */
  readonly next?: string;
  readonly searched: number;
}

const MAX_LINE_CHARS = 300;
const MAX_HITS_PER_FILE = 200;
const decoder = new TextDecoder();

/** A line tester for `query`; a `TypeError` for a regular expression that does not compile. */
export const matcher = (query: string, regex: boolean): ((line: string) => boolean) => {
  if (!regex) return (line) => line.includes(query);
  let pattern: RegExp;
  try {
    pattern = new RegExp(query, "u");
  } catch (error) {
    throw new TypeError(`not a regular expression: ${(error as Error).message}`);
  }
  return (line) => pattern.test(line);
};

export const search = async (
  store: MemoryStore,
  options: { query: string; regex: boolean; hidden: boolean; cursor: number; limit: number },
  aborted: () => boolean,
): Promise<SearchPage> => {
  const test = matcher(options.query, options.regex);
  const { files } = await enumerateFiles(store);
  const shown = options.hidden ? files : files.filter((f) => segmentsOf(f.path).every(isListedName));
  const hits: SearchHit[] = [];
  let index = options.cursor;
  for (; index < shown.length && hits.length < options.limit; index++) {
    if (aborted()) break;
    const file = shown[index] as (typeof shown)[number];
    const data = await store.read(file.path);
    if (!data) continue;
    const lines = decoder.decode(data.data).split("\n");
    // A file is searched to its end (up to MAX_HITS_PER_FILE), so that the next page starts at a file.
    for (let n = 0, inFile = 0; n < lines.length && inFile < MAX_HITS_PER_FILE; n++) {
      const line = lines[n] as string;
      if (!test(line)) continue;
      inFile++;
      hits.push({ path: file.path, line: n + 1, text: line.slice(0, MAX_LINE_CHARS) });
    }
  }
  return {
    hits,
    searched: index - options.cursor,
    ...(index < shown.length ? { next: String(index) } : {}),
  };
};
