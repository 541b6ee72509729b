/**
 * Search (SPEC §9) through a `pg_trgm` GIN index on each file's bytes as `encode(content, 'escape')`
 * text: every byte sequence has that form (bytes past ASCII and NUL as `\ooo`, a backslash doubled), so
 * the index covers every file whatever it holds, and PostgreSQL keeps it in the transaction of every
 * write. A literal query becomes a regular expression over that text in which each character stands for
 * every character of its case class (core's `searchIndexForm`), so the files it selects are all those
 * that may match (PostgreSQL rechecks the index's candidates); core then matches their lines. On a table
 * made with `searchIndex: false` the same statement tests the tenant's files under the path, found
 * through the primary key: the same files, one round trip, the server reading each file.
 */
import { type SearchFile, type SearchRequest, searchIndexForm } from "@mem/core";
import type { SqlNames } from "./names.js";

/** The expression the index is built on; the statement must name it exactly for the index to apply. */
const INDEXED = "encode(x.content, 'escape')";

/** The statement: files of the tenant at or beneath a path whose text matches $5, not expired at $6. */
export const searchSql = (n: SqlNames): string =>
  `SELECT x.path AS r_path, x.content AS r_content FROM ${n.table} x
    WHERE x.tenant = $1 AND x.kind = 'f' AND (x.path = $2 OR (x.path >= $3 AND x.path < $4))
      AND ($6::bigint IS NULL OR x.accessed_at >= $6) AND ${INDEXED} ~ $5`;

/** The statement's parameters after the tenant, or `null` when the index cannot narrow the request. */
export const searchValues = (request: SearchRequest, cutoff: number | null): unknown[] | null => {
  if (request.regex || [...request.query].length < 3) return null;
  const pattern = patternOf(request.query, request.caseSensitive);
  return [request.path, `${request.path}/`, `${request.path}0`, pattern, cutoff];
};

export const searchFiles = (rows: readonly Record<string, unknown>[]): SearchFile[] =>
  rows.map((row) => ({ path: String(row["r_path"]), data: new Uint8Array(row["r_content"] as Buffer) }));

const encoder = new TextEncoder();

/** A character as `encode(..., 'escape')` writes its UTF-8 bytes, as a literal of an ARE pattern. */
const escapedLiteral = (character: string): string => {
  let out = "";
  for (const byte of encoder.encode(character)) {
    if (byte === 0 || byte >= 0x80) out += `\\\\${byte.toString(8).padStart(3, "0")}`;
    else if (byte === 0x5c) out += "\\\\\\\\";
    else {
      const c = String.fromCharCode(byte);
      out += /[A-Za-z0-9]/.test(c) ? c : `\\${c}`;
    }
  }
  return out;
};

/** The pattern of a literal query: each character, or with case folding each member of its class. */
const patternOf = (query: string, caseSensitive: boolean): string => {
  let out = "";
  for (const character of query) {
    const members = caseSensitive ? [character] : classOf(character);
    out += members.length === 1 ? escapedLiteral(character) : `(?:${members.map(escapedLiteral).join("|")})`;
  }
  return out;
};

/** Every character with the same index form as `character` (itself alone for most). */
const classOf = (character: string): string[] => classes().get(searchIndexForm(character)) ?? [character];

let built: Map<string, string[]> | undefined;

/** The case classes of every character that has another case, built once (cased letters end below U+20000). */
const classes = (): Map<string, string[]> => {
  if (built) return built;
  const map = new Map<string, string[]>();
  for (let cp = 0; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    const form = searchIndexForm(c);
    if (form === c && c.toUpperCase() === c) continue;
    const members = map.get(form) ?? [form];
    if (!members.includes(c)) members.push(c);
    map.set(form, members);
  }
  built = map;
  return map;
};
