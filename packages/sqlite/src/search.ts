/**
 * The search index (SPEC §9): an FTS5 trigram table over each file's text in core's index form
 * (`searchIndexForm`: case classes folded the way the regular expression engine folds them), kept by
 * triggers on `mem_files`, so every write, rename, delete, sweep and purge updates it in the write's own
 * transaction. The table is contentless (it stores no copy of the text) and deletes are secure (a
 * removed file's trigrams leave the index at once, as erasure requires).
 */
import { searchIndexForm } from "@mem/core";
import type Database from "better-sqlite3";

/** The SQL function the triggers call: a file's bytes in index form, `NULL` when they are not UTF-8. */
export const INDEX_FORM_FUNCTION = "mem_search_form";

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Registers the index-form function; every connection that may write does so before the first write. */
export const registerSearchFunction = (db: Database.Database): void => {
  db.function(INDEX_FORM_FUNCTION, { deterministic: true }, (content: unknown) => {
    if (!(content instanceof Uint8Array)) return null;
    try {
      return searchIndexForm(decoder.decode(content));
    } catch {
      return null;
    }
  });
};

export const SEARCH_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS mem_search USING fts5(
  body, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1'
);
INSERT INTO mem_search (mem_search, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER IF NOT EXISTS mem_search_insert AFTER INSERT ON mem_files WHEN new.kind = 'f' BEGIN
  INSERT INTO mem_search (rowid, body) VALUES (new.id, ${INDEX_FORM_FUNCTION}(new.content));
END;
CREATE TRIGGER IF NOT EXISTS mem_search_update AFTER UPDATE OF content ON mem_files WHEN new.kind = 'f' BEGIN
  DELETE FROM mem_search WHERE rowid = old.id;
  INSERT INTO mem_search (rowid, body) VALUES (new.id, ${INDEX_FORM_FUNCTION}(new.content));
END;
CREATE TRIGGER IF NOT EXISTS mem_search_delete AFTER DELETE ON mem_files WHEN old.kind = 'f' BEGIN
  DELETE FROM mem_search WHERE rowid = old.id;
END;
`;

/** Indexes the files a database made before the index existed (run once, by the migration). */
export const BACKFILL_SQL = `INSERT INTO mem_search (rowid, body)
  SELECT id, ${INDEX_FORM_FUNCTION}(content) FROM mem_files WHERE kind = 'f'`;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Trigrams: a needle shorter than three characters cannot be looked up. */
const MIN_NEEDLE = 3;

/**
 * The FTS5 query for a needle: one phrase, which the trigram tokenizer matches as a substring. `null`
 * when the index cannot answer it (too short, a NUL, or not well-formed Unicode).
 */
export const phraseOf = (needle: string): string | null => {
  if ([...needle].length < MIN_NEEDLE || needle.includes("\u0000") || LONE_SURROGATE.test(needle))
    return null;
  return `"${needle.replaceAll('"', '""')}"`;
};
