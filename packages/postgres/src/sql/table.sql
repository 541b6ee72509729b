-- The store's table, its indexes and its version sequence. ../schema.ts embeds this file and fills its
-- double-brace placeholders with the quoted names that the store's validated `schema` and `table` options
-- give; nothing else is ever put into SQL as text: paths, tenants and contents reach it only as bound
-- parameters.
--
-- Rows: `f` a file, `d` a directory (kept while files lie beneath it), `r` a tenant's `/memories` (its
-- totals and the lock its writers take), `v` the schema version (tenant '', which no tenant key can be),
-- `e` the erasure fence of a tenant being purged (path '', which no file path can be).
-- The `tenant` column is the chain of scopes: `/` for the unscoped store, `/a` for `scope("a")`, `/a/b`
-- for `scope("a").scope("b")`.
-- Aggregates: for `d` and `r` rows, `files` and `bytes` count every file beneath, `size` the listed ones
-- (SPEC §4: nothing under a hidden or `node_modules` name, relative to that directory); for `f` rows,
-- `files` is 1 and `size` = `bytes` = the content's length. So a listing reads only the rows it shows,
-- and `usage()` reads one row. `utf8` is true when a file's content is UTF-8 text without NUL (the writer
-- checks it): reads send such content as text, half the bytes of bytea's hex form and far cheaper to
-- encode and decode; false or NULL (rows written before schema 6) send bytea.
--
-- Paths compare byte by byte (COLLATE "C"), so that the range `>= p || '/'` and `< p || '0'` holds
-- exactly the rows beneath p, whatever the database's collation.
CREATE TABLE IF NOT EXISTS {{ table }} (
  tenant      text COLLATE "C" NOT NULL,
  path        text COLLATE "C" NOT NULL,
  kind        "char" NOT NULL,
  parent      text COLLATE "C",
  content     bytea,
  version     bigint NOT NULL DEFAULT 0,
  size        bigint NOT NULL DEFAULT 0,
  files       bigint NOT NULL DEFAULT 0,
  bytes       bigint NOT NULL DEFAULT 0,
  accessed_at bigint,
  utf8        boolean,
  PRIMARY KEY (tenant, path)
);
CREATE INDEX IF NOT EXISTS "{{ bare }}_children" ON {{ table }} (tenant, parent, path);
CREATE INDEX IF NOT EXISTS "{{ bare }}_access" ON {{ table }} (tenant, accessed_at) WHERE kind = 'f';
CREATE SEQUENCE IF NOT EXISTS {{ fn("versions") }};
