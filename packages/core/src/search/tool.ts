/**
 * The `memory_search` tool (SPEC §9): its definition for the model, its input checks and its result
 * text, within the same character budget as a view.
 */
import type { ToolResult } from "../execute.js";
import { safeReason } from "../failure.js";
import { msg, searchToolText } from "../messages.js";
import { validatePath } from "../path.js";
import type { MemoryStore } from "../store.js";
import { hasLoneSurrogate } from "../text.js";
import { ROOT } from "../tree.js";
import { compileQuery, MAX_QUERY_LENGTH, searchQuoted } from "./pattern.js";
import {
  DEFAULT_SEARCH_BYTES,
  DEFAULT_SEARCH_FILES,
  DEFAULT_SEARCH_LIMIT,
  runSearch,
  type SearchResult,
} from "./search.js";

/** The tool's name, as the model calls it. */
export const MEMORY_SEARCH_TOOL_NAME = searchToolText.name;
/** The tool's description for the model. */
export const MEMORY_SEARCH_TOOL_DESCRIPTION = searchToolText.description;

export interface SearchToolInputSchema {
  [key: string]: unknown;
  type: "object";
  properties: {
    query: { type: "string"; description: string };
    path: { type: "string"; description: string };
    regex: { type: "boolean"; description: string };
    case_sensitive: { type: "boolean"; description: string };
  };
  required: ["query"];
}

/**
 * The JSON Schema of the tool's input (SPEC §9).
 *
 * @example
 * ```ts
 * import { memorySearchInputSchema } from "@mem/core";
 * memorySearchInputSchema().required; // ["query"]
 * ```
 */
export const memorySearchInputSchema = (): SearchToolInputSchema => ({
  type: "object",
  properties: {
    query: { type: "string", description: searchToolText.parameters.query },
    path: { type: "string", description: searchToolText.parameters.path },
    regex: { type: "boolean", description: searchToolText.parameters.regex },
    case_sensitive: { type: "boolean", description: searchToolText.parameters.case_sensitive },
  },
  required: ["query"],
});

export interface SearchToolOptions {
  /** Budget of the hit lines of a result, in characters. Default 16,000 (the same as a view's). */
  viewCharLimit?: number;
  /** Without a native index: most files read before the search stops. Default 10,000. */
  maxFilesRead?: number;
  /** Without a native index: most bytes read before the search stops. Default 64 MiB. */
  maxBytesRead?: number;
  /** Called with an error the model sees only as a generic reason (see `ExecuteOptions`). */
  onUnexpectedError?: (error: unknown) => void;
}

/** The longest hit text shown, in characters; a longer line is cut and followed by `…`. */
const HIT_TEXT_LIMIT = 200;

const fail = (content: string): ToolResult => ({ content, isError: true });

/**
 * Runs one `memory_search` call: SPEC §9's result or error result, never a thrown error.
 *
 * @example
 * ```ts
 * import { executeSearch, InMemoryStore } from "@mem/core";
 * const { content } = await executeSearch(new InMemoryStore(), { query: "tea" });
 * // 'No matches for "tea" in /memories.'
 * ```
 */
export async function executeSearch(
  store: MemoryStore,
  input: unknown,
  options: SearchToolOptions = {},
): Promise<ToolResult> {
  let subject = msg.unvalidatedPath();
  try {
    const parsed = parseSearchInput(input);
    if (typeof parsed === "string") return fail(parsed);
    if (parsed.query === "") return fail(msg.searchEmptyQuery());
    if (parsed.query.length > MAX_QUERY_LENGTH) return fail(msg.searchLongQuery());
    const checked = validatePath(parsed.path, { isReservedName: store.isReservedName?.bind(store) });
    if (!checked.ok) return fail(checked.error);
    const compiled = compileQuery(parsed.query, parsed.regex, parsed.caseSensitive);
    if (!compiled.ok) return fail(compiled.error);
    subject = checked.path;
    const result = await runSearch(store, {
      path: checked.path,
      query: compiled.query,
      limit: DEFAULT_SEARCH_LIMIT,
      maxFiles: positive(options.maxFilesRead, DEFAULT_SEARCH_FILES),
      maxBytes: positive(options.maxBytesRead, DEFAULT_SEARCH_BYTES),
    });
    if (!result) return fail(msg.viewMissing(checked.path));
    const budget = options.viewCharLimit ?? 16_000;
    return { content: renderSearch(parsed.query, checked.path, result, budget), isError: false };
  } catch (error) {
    try {
      options.onUnexpectedError?.(error);
    } catch {
      // A failing hook must not turn into a thrown tool call.
    }
    return fail(msg.storeFailed("search", subject, safeReason(error)));
  }
}

const positive = (value: number | undefined, fallback: number): number =>
  typeof value === "number" && value >= 1 ? value : fallback;

type SearchInput = { query: string; path: string; regex: boolean; caseSensitive: boolean };

/** The parameter checks, in order: types first (query, path, regex, case_sensitive), then the query. */
function parseSearchInput(input: unknown): SearchInput | string {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return msg.searchNotAnObject();
  const fields = input as Record<string, unknown>;
  const { query, path = ROOT, regex = false, case_sensitive = false } = fields;
  if (query === undefined || query === null) return msg.missingParam("query", MEMORY_SEARCH_TOOL_NAME);
  if (typeof query !== "string") return msg.wrongType("query", "a string");
  if (typeof path !== "string") return msg.notAString("path");
  if (typeof regex !== "boolean") return msg.wrongType("regex", "a boolean");
  if (typeof case_sensitive !== "boolean") return msg.wrongType("case_sensitive", "a boolean");
  if (hasLoneSurrogate(query)) return msg.notUnicode("query");
  return { query, path, regex, caseSensitive: case_sensitive };
}

/** SPEC §9's success text: the header, whole hit lines within the budget, then what was left out. */
export function renderSearch(query: string, path: string, result: SearchResult, budget: number): string {
  const quoted = searchQuoted(query);
  const total = result.hits.length + result.more;
  const stopped = result.stopped ? `\n${msg.searchStopped(result.stopped.files)}` : "";
  if (total === 0) return `${msg.searchNone(quoted, path)}${stopped}`;
  const lines = [msg.searchFound(total, quoted, path)];
  let used = 0;
  for (const hit of result.hits) {
    const line = msg.searchHit(hit.path, hit.line, cutHit(hit.text));
    const cost = line.length + (lines.length > 1 ? 1 : 0);
    if (used + cost > budget) break;
    used += cost;
    lines.push(line);
  }
  const left = total - (lines.length - 1);
  if (left > 0) lines.push(msg.searchMore(left));
  return `${lines.join("\n")}${stopped}`;
}

const cutHit = (text: string): string => {
  if (text.length <= HIT_TEXT_LIMIT) return text;
  const last = text.charCodeAt(HIT_TEXT_LIMIT - 1);
  const end = HIT_TEXT_LIMIT - (last >= 0xd800 && last <= 0xdbff ? 1 : 0);
  return `${text.slice(0, end)}${msg.searchLineCut()}`;
};
