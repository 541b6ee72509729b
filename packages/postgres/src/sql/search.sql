-- Search (SPEC §9): a trigram index over every file's bytes in escape form (valid text for any bytes),
-- kept by PostgreSQL in the transaction of each write. ../search.ts builds the queries that use it: the
-- expression here and there must be the same. A database owner may install the extension beforehand
-- when the application's role may not create it. ../schema.ts runs this file after table.sql unless the
-- store's `searchIndex` option is false: keeping the index is the largest single part of what a write
-- costs the server (the trigrams of the whole file, on every write), and search answers without it by
-- reading the tenant's files in the statement.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX IF NOT EXISTS "{{ bare }}_search" ON {{ table }}
  USING gin (encode(content, 'escape') gin_trgm_ops) WHERE kind = 'f';
