-- The functions that run each command in one statement, and the data migrations between schema
-- versions, run after table.sql. ../schema.ts fills the double-brace placeholders (table: the quoted
-- table; fn("write"): the store's function `"schema"."table_write"`; schema_version) and runs the whole
-- text in the migration transaction, so every statement here must be idempotent: CREATE OR REPLACE,
-- DROP ... IF EXISTS for signatures an older version created, data migrations guarded by the version
-- they upgrade from. A change to what this file creates bumps SCHEMA_VERSION in ../schema.ts.
--
-- Every plpgsql body names the table with alias x and reads columns through it, and output columns are
-- r_*, so no column can be mistaken for a variable.
--
-- The functions the store calls run their statements on plans made once per session (SET plan_cache_mode
-- = force_generic_plan, which holds for the functions they call too). Left to choose, once autovacuum had
-- analysed a table of some hundred tenants, the plan cache found the plans with the call's values folded
-- in cheaper and planned a statement again on every write, rename and delete: about a fifth of the
-- server's CPU under load. Every statement here finds its rows through an index whatever the values.
--
-- A statement that finds a file by its path tests `x.kind::text = 'f'`, not `x.kind = 'f'`: the latter
-- lets the planner answer it from the access index (partial, WHERE kind = 'f'), which on a table not yet
-- analysed it judges tiny, so the plan kept for the session scanned every file of the tenant instead of
-- probing the primary key (see IS_FILE in ../statements.ts). For the same reason a look at a path's
-- ancestors probes each by its key (a LATERAL subquery with LIMIT, which the planner cannot turn into a
-- join): `x.path = ANY (p_ancestors)` let it scan the tenant's rows through the children index.

-- Schema 6: tables made earlier gain the `utf8` column (NULL on their rows: sent as bytea until rewritten).
ALTER TABLE {{ table }} ADD COLUMN IF NOT EXISTS utf8 boolean;

-- Not STRICT, so that the planner inlines it into the statements that call it instead of running it
-- as a statement of its own for every row.
CREATE OR REPLACE FUNCTION {{ fn("hidden") }}(name text) RETURNS boolean
LANGUAGE sql IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE AS $fn$
  SELECT left(name, 1) = '.' OR name = 'node_modules'
$fn$;

-- Serialises a tenant's writers on its /memories row, created on first use.
CREATE OR REPLACE FUNCTION {{ fn("lock") }}(p_tenant text) RETURNS void
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  PERFORM 1 FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = '/memories' FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO {{ table }} (tenant, path, kind) VALUES (p_tenant, '/memories', 'r') ON CONFLICT DO NOTHING;
    PERFORM 1 FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = '/memories' FOR UPDATE;
  END IF;
END $fn$;

-- SPEC §7's erasure fence: purge() commits a row (path '', kind 'e') for its tenant before the transaction
-- that deletes the tenant's rows, the fence with them. A write of a fenced tenant, or of a tenant nested in
-- one, fails with SQLSTATE ME001 and changes nothing (the statement rolls back). Writers call it after
-- taking the tenant's lock, with a fresh snapshot, so a write either committed before the purge took that
-- lock (and is erased) or sees the fence. The keys to look for are p_tenant and its enclosing keys ('/a',
-- '/a/b' and '/a/b/c' for '/a/b/c'), found by plain string arithmetic (PL/pgSQL evaluates it without a
-- query), so the look itself is one probe of the primary key whose plan is made once per session: an
-- inlined SQL expression over generate_series was planned afresh on every write.
DROP FUNCTION IF EXISTS {{ fn("fenced") }}(text);
CREATE FUNCTION {{ fn("fenced") }}(p_tenant text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  chain text[] := ARRAY[p_tenant];
  k text := p_tenant;
BEGIN
  LOOP
    k := left(k, length(k) - strpos(reverse(k), '/'));
    EXIT WHEN k = '';
    chain := chain || k;
  END LOOP;
  RETURN EXISTS (SELECT 1 FROM {{ table }} x WHERE x.tenant = ANY (chain) AND x.path = '' AND x.kind = 'e');
END $fn$;

-- Adds a subtree's totals to every ancestor of p_path: directory rows appear with their first file and
-- go with their last; p_size counts only for ancestors from which no name on the way is hidden.
CREATE OR REPLACE FUNCTION {{ fn("adjust") }}(p_tenant text, p_path text, p_files bigint, p_bytes bigint, p_size bigint)
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  a text := p_path;
  cut int;
  hidden boolean := false;
  remaining bigint;
BEGIN
  LOOP
    cut := length(a) - strpos(reverse(a), '/');
    hidden := hidden OR {{ fn("hidden") }}(substr(a, cut + 2));
    a := left(a, cut);
    IF p_files > 0 AND a <> '/memories' THEN
      INSERT INTO {{ table }} AS x (tenant, path, kind, parent, size, files, bytes)
      VALUES (p_tenant, a, 'd', left(a, length(a) - strpos(reverse(a), '/')),
              CASE WHEN hidden THEN 0 ELSE p_size END, p_files, p_bytes)
      ON CONFLICT (tenant, path) DO UPDATE
        SET size = x.size + EXCLUDED.size, files = x.files + EXCLUDED.files, bytes = x.bytes + EXCLUDED.bytes;
    ELSE
      UPDATE {{ table }} x
        SET size = x.size + CASE WHEN hidden THEN 0 ELSE p_size END,
            files = x.files + p_files, bytes = x.bytes + p_bytes
        WHERE x.tenant = p_tenant AND x.path = a
        RETURNING x.files INTO remaining;
      IF remaining = 0 AND a <> '/memories' THEN
        DELETE FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = a;
      END IF;
    END IF;
    EXIT WHEN a = '/memories';
  END LOOP;
END $fn$;

-- Removes the tenant's files last accessed before p_cutoff, oldest first, each found by one probe of the
-- access index (so the work is O(expired files), whatever the plan cache does). The caller holds the
-- tenant's lock.
CREATE OR REPLACE FUNCTION {{ fn("reclaim") }}(p_tenant text, p_cutoff bigint)
RETURNS TABLE (r_path text, r_size bigint) LANGUAGE plpgsql AS $fn$
DECLARE
  r record;
BEGIN
  LOOP
    SELECT x.path, x.size, x.accessed_at INTO r FROM {{ table }} x
      WHERE x.tenant = p_tenant AND x.kind = 'f' ORDER BY x.accessed_at LIMIT 1;
    EXIT WHEN NOT FOUND OR r.accessed_at >= p_cutoff;
    DELETE FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = r.path;
    PERFORM {{ fn("adjust") }}(p_tenant, r.path, -1, -r.size, -r.size);
    r_path := r.path;
    r_size := r.size;
    RETURN NEXT;
  END LOOP;
END $fn$;

-- For readers: reclaims expired files only when there are any, so reads take no lock otherwise.
CREATE OR REPLACE FUNCTION {{ fn("expire") }}(p_tenant text, p_cutoff bigint) RETURNS void
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
  oldest bigint;
BEGIN
  IF p_cutoff IS NULL THEN
    RETURN;
  END IF;
  -- The first entry of the access index, not min(): on a table not yet analysed the planner read every
  -- file of the tenant for min().
  SELECT x.accessed_at INTO oldest FROM {{ table }} x WHERE x.tenant = p_tenant AND x.kind = 'f'
    ORDER BY x.accessed_at LIMIT 1;
  IF oldest < p_cutoff THEN
    PERFORM {{ fn("lock") }}(p_tenant);
    PERFORM {{ fn("reclaim") }}(p_tenant, p_cutoff);
  END IF;
END $fn$;

CREATE OR REPLACE FUNCTION {{ fn("sweep") }}(p_tenant text, p_cutoff bigint)
RETURNS TABLE (r_path text, r_size bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  PERFORM {{ fn("lock") }}(p_tenant);
  RETURN QUERY SELECT s.r_path, s.r_size FROM {{ fn("reclaim") }}(p_tenant, p_cutoff) s;
END $fn$;

-- Version 1's write, without quotas, and version 5's, without p_utf8.
DROP FUNCTION IF EXISTS {{ fn("write") }}(text, text, text[], bytea, bigint, bigint, bigint);
DROP FUNCTION IF EXISTS {{ fn("write") }}(text, text, text[], bytea, bigint, bigint, bigint, bigint, bigint);

-- p_if_version NULL: create only if nothing is at p_path. Otherwise replace the file with that version.
-- p_ancestors: the proper ancestors of p_path, nearest first, ending with /memories.
-- p_utf8: whether p_data is UTF-8 text without NUL (see the `utf8` column).
-- p_max_files, p_max_bytes: the quotas (NULL: none), checked under the tenant's lock after the write's
-- own errors, so concurrent writers never overshoot them; 'quota' answers with the files and bytes held.
-- Without expiry, after the tenant's lock (which reads its totals) and the fence, a create runs one
-- statement that writes the file and adds it to every ancestor's totals; an edit one that writes the
-- file, then, when its size changed, one per ancestor (adjust). Answers are assigned, not queried, so
-- they cost no statement.
CREATE OR REPLACE FUNCTION {{ fn("write") }}(p_tenant text, p_path text, p_ancestors text[], p_data bytea,
                                         p_if_version bigint, p_now bigint, p_cutoff bigint,
                                         p_max_files bigint, p_max_bytes bigint, p_utf8 boolean)
RETURNS TABLE (r_status text, r_detail text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
  tot record;
  hit record;
  v bigint;
  was bigint;
  n bigint := octet_length(p_data);
BEGIN
  SELECT x.files, x.bytes INTO tot FROM {{ table }} x
    WHERE x.tenant = p_tenant AND x.path = '/memories' FOR UPDATE;
  IF NOT FOUND THEN
    IF p_if_version IS NOT NULL THEN
      -- No /memories row: the tenant holds no file, so none has that version.
      r_status := 'conflict';
      RETURN NEXT;
      RETURN;
    END IF;
    PERFORM {{ fn("lock") }}(p_tenant);
    SELECT x.files, x.bytes INTO tot FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = '/memories';
  END IF;
  IF {{ fn("fenced") }}(p_tenant) THEN RAISE EXCEPTION 'erasing' USING ERRCODE = 'ME001'; END IF;
  IF p_cutoff IS NOT NULL THEN
    PERFORM {{ fn("reclaim") }}(p_tenant, p_cutoff);
    IF FOUND THEN
      SELECT x.files, x.bytes INTO tot FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = '/memories';
    END IF;
  END IF;
  IF p_if_version IS NULL THEN
    IF tot.files + 1 > p_max_files OR tot.bytes + n > p_max_bytes THEN
      -- The quota refuses, unless the create's own error comes first: look at the path and its ancestors.
      SELECT f.path INTO hit FROM unnest(array_prepend(p_path, p_ancestors)) a(path)
        CROSS JOIN LATERAL (SELECT x.path, x.kind FROM {{ table }} x
                             WHERE x.tenant = p_tenant AND x.path = a.path LIMIT 1) f
        WHERE f.path = p_path OR f.kind::text = 'f'
        ORDER BY f.path = p_path LIMIT 1;
      IF NOT FOUND THEN
        r_status := 'quota';
        r_detail := tot.files || ' ' || tot.bytes;
      ELSE
        r_status := CASE WHEN hit.path = p_path THEN 'exists' ELSE 'notdir' END;
        r_detail := CASE WHEN hit.path = p_path THEN NULL ELSE hit.path END;
      END IF;
      RETURN NEXT;
      RETURN;
    END IF;
    -- One statement: the file, unless a file is among its ancestors or something is at its path (the
    -- primary key's conflict), then its ancestors' totals, only when the file went in. Directory rows
    -- appear with their first file; size counts only for ancestors from which no name on the way down
    -- is hidden. Only a refusal pays for a second look, to tell which.
    WITH file AS (
      INSERT INTO {{ table }} (tenant, path, kind, parent, content, version, size, files, bytes, accessed_at, utf8)
        SELECT p_tenant, p_path, 'f', p_ancestors[1], p_data, nextval('{{ fn("versions") }}'), n, 1, n, p_now, p_utf8
          WHERE NOT EXISTS (SELECT 1 FROM unnest(p_ancestors) a(path)
                              CROSS JOIN LATERAL (SELECT 1 FROM {{ table }} x
                                                   WHERE x.tenant = p_tenant AND x.path = a.path
                                                     AND x.kind::text = 'f' LIMIT 1) f)
        ON CONFLICT (tenant, path) DO NOTHING
        RETURNING version
    ), dirs AS (
      INSERT INTO {{ table }} AS x (tenant, path, kind, parent, size, files, bytes)
        SELECT p_tenant, a.path, 'd', left(a.path, length(a.path) - strpos(reverse(a.path), '/')),
               CASE WHEN EXISTS (SELECT 1 FROM unnest(string_to_array(substr(p_path, length(a.path) + 2), '/')) c
                                 WHERE {{ fn("hidden") }}(c)) THEN 0 ELSE n END, 1, n
          FROM unnest(p_ancestors) a(path)
          WHERE EXISTS (SELECT 1 FROM file)
        ON CONFLICT (tenant, path) DO UPDATE
          SET size = x.size + EXCLUDED.size, files = x.files + 1, bytes = x.bytes + EXCLUDED.bytes
    )
    SELECT file.version INTO v FROM file;
    IF v IS NULL THEN
      -- A file among the ancestors comes first (notdir), then whatever is at the path (exists).
      SELECT f.path INTO hit FROM unnest(array_prepend(p_path, p_ancestors)) a(path)
        CROSS JOIN LATERAL (SELECT x.path, x.kind FROM {{ table }} x
                             WHERE x.tenant = p_tenant AND x.path = a.path LIMIT 1) f
        WHERE f.path = p_path OR f.kind::text = 'f'
        ORDER BY f.path = p_path LIMIT 1;
      r_status := CASE WHEN hit.path = p_path THEN 'exists' ELSE 'notdir' END;
      r_detail := CASE WHEN hit.path = p_path THEN NULL ELSE hit.path END;
      RETURN NEXT;
      RETURN;
    END IF;
  ELSE
    -- An edit needs no look at the ancestors: a file with that version has none that is a file. The
    -- replacement happens only when the version matches and the quota allows any growth. The file's row
    -- is found by its key; when its size changes, adjust() adds the difference to each ancestor, found by
    -- its key too. (One UPDATE of the file and its ancestors together read every row of the tenant on a
    -- table not yet analysed, and was no faster on an analysed one.) The tenant's lock, taken above, is
    -- what orders concurrent writers.
    WITH old AS (
      SELECT x.size FROM {{ table }} x
        WHERE x.tenant = p_tenant AND x.path = p_path AND x.kind::text = 'f' AND x.version = p_if_version
          AND (p_max_bytes IS NULL OR n <= x.size OR tot.bytes - x.size + n <= p_max_bytes)
    )
    UPDATE {{ table }} x
      SET content = p_data, version = nextval('{{ fn("versions") }}'), size = n, bytes = n,
          accessed_at = p_now, utf8 = p_utf8
      FROM old
      WHERE x.tenant = p_tenant AND x.path = p_path
      RETURNING x.version, old.size INTO v, was;
    IF v IS NOT NULL AND n <> was THEN
      PERFORM {{ fn("adjust") }}(p_tenant, p_path, 0, n - was, n - was);
    END IF;
    IF v IS NULL THEN
      -- Refused: a quota when the version matches, otherwise a conflict.
      PERFORM 1 FROM {{ table }} x
        WHERE x.tenant = p_tenant AND x.path = p_path AND x.kind::text = 'f' AND x.version = p_if_version;
      r_status := CASE WHEN FOUND THEN 'quota' ELSE 'conflict' END;
      r_detail := CASE WHEN FOUND THEN tot.files || ' ' || tot.bytes ELSE NULL END;
      RETURN NEXT;
      RETURN;
    END IF;
  END IF;
  r_status := 'ok';
  r_detail := v::text;
  RETURN NEXT;
END $fn$;

CREATE OR REPLACE FUNCTION {{ fn("delete") }}(p_tenant text, p_path text, p_cutoff bigint) RETURNS boolean
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
  cur record;
BEGIN
  PERFORM {{ fn("lock") }}(p_tenant);
  IF {{ fn("fenced") }}(p_tenant) THEN RAISE EXCEPTION 'erasing' USING ERRCODE = 'ME001'; END IF;
  IF p_cutoff IS NOT NULL THEN PERFORM {{ fn("reclaim") }}(p_tenant, p_cutoff); END IF;
  IF p_path = '/memories' THEN
    SELECT x.files INTO cur FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = '/memories';
    DELETE FROM {{ table }} x WHERE x.tenant = p_tenant
      AND x.path >= '/memories/' COLLATE "C" AND x.path < '/memories0' COLLATE "C";
    UPDATE {{ table }} x SET size = 0, files = 0, bytes = 0 WHERE x.tenant = p_tenant AND x.path = '/memories';
    RETURN cur.files > 0;
  END IF;
  SELECT x.kind, x.size, x.files, x.bytes INTO cur FROM {{ table }} x
    WHERE x.tenant = p_tenant AND x.path = p_path AND x.kind IN ('f', 'd');
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  DELETE FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = p_path;
  IF cur.kind = 'd' THEN
    DELETE FROM {{ table }} x WHERE x.tenant = p_tenant
      AND x.path >= (p_path || '/') COLLATE "C" AND x.path < (p_path || '0') COLLATE "C";
  END IF;
  PERFORM {{ fn("adjust") }}(p_tenant, p_path, -cur.files, -cur.bytes, -cur.size);
  RETURN true;
END $fn$;

-- p_ancestors: the proper ancestors of p_to, nearest first, ending with /memories.
CREATE OR REPLACE FUNCTION {{ fn("rename") }}(p_tenant text, p_from text, p_to text, p_ancestors text[],
                                          p_now bigint, p_cutoff bigint)
RETURNS TABLE (r_status text, r_detail text)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
  src record;
  anc text;
  n int := length(p_from);
BEGIN
  PERFORM {{ fn("lock") }}(p_tenant);
  IF {{ fn("fenced") }}(p_tenant) THEN RAISE EXCEPTION 'erasing' USING ERRCODE = 'ME001'; END IF;
  IF p_cutoff IS NOT NULL THEN PERFORM {{ fn("reclaim") }}(p_tenant, p_cutoff); END IF;
  SELECT x.kind, x.size, x.files, x.bytes INTO src FROM {{ table }} x
    WHERE x.tenant = p_tenant AND x.path = p_from AND x.kind IN ('f', 'd');
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'notfound'::text, NULL::text;
    RETURN;
  END IF;
  PERFORM 1 FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = p_to;
  IF FOUND THEN
    RETURN QUERY SELECT 'exists'::text, NULL::text;
    RETURN;
  END IF;
  IF left(p_to, n + 1) = p_from || '/' THEN
    RETURN QUERY SELECT 'inside'::text, NULL::text;
    RETURN;
  END IF;
  SELECT a.path INTO anc FROM unnest(p_ancestors) a(path)
    CROSS JOIN LATERAL (SELECT 1 FROM {{ table }} x
                         WHERE x.tenant = p_tenant AND x.path = a.path AND x.kind::text = 'f' LIMIT 1) f
    LIMIT 1;
  IF FOUND THEN
    RETURN QUERY SELECT 'notdir'::text, anc;
    RETURN;
  END IF;
  PERFORM {{ fn("adjust") }}(p_tenant, p_from, -src.files, -src.bytes, -src.size);
  UPDATE {{ table }} x SET path = p_to, parent = p_ancestors[1],
                    accessed_at = CASE WHEN x.kind = 'f' THEN p_now ELSE x.accessed_at END
    WHERE x.tenant = p_tenant AND x.path = p_from;
  IF src.kind = 'd' THEN
    UPDATE {{ table }} x SET path = p_to || substr(x.path, n + 1), parent = p_to || substr(x.parent, n + 1),
                      accessed_at = CASE WHEN x.kind = 'f' THEN p_now ELSE x.accessed_at END
      WHERE x.tenant = p_tenant
        AND x.path >= (p_from || '/') COLLATE "C" AND x.path < (p_from || '0') COLLATE "C";
  END IF;
  PERFORM {{ fn("adjust") }}(p_tenant, p_to, src.files, src.bytes, src.size);
  RETURN QUERY SELECT 'ok'::text, NULL::text;
END $fn$;

-- Version 2's listing, without a limit.
DROP FUNCTION IF EXISTS {{ fn("list") }}(text, text, int, bigint);

-- The directory's own row first (r_depth 0, r_omitted the entries left out), then its listed entries,
-- found level by level, one scan of the children index for each directory of the level before. With
-- p_limit, only the first p_limit entries in view's order (depth first, siblings by name)
-- are sent. That order compares names by code points, which matches view's UTF-16 order unless a name
-- holds a character from U+E000 up: then every entry is sent and the caller orders them.
--
-- Its statements run on plans made once per session (force_generic_plan): the per-level query takes an
-- array of directories, for which the planner's default kept making a new plan on every call, which cost
-- more than running it.
CREATE OR REPLACE FUNCTION {{ fn("list") }}(p_tenant text, p_dir text, p_depth int, p_limit int, p_cutoff bigint)
RETURNS TABLE (r_path text, r_kind "char", r_size bigint, r_depth int, r_omitted bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
  lvl text[] := ARRAY[p_dir];
  nxt text[];
  r record;
  head bigint;
  paths text[] := '{}';
  kinds "char"[] := '{}';
  sizes bigint[] := '{}';
  depths int[] := '{}';
  total int;
BEGIN
  IF p_cutoff IS NOT NULL THEN
    PERFORM {{ fn("expire") }}(p_tenant, p_cutoff);
  END IF;
  SELECT x.size INTO head FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = p_dir AND x.kind IN ('d', 'r');
  IF NOT FOUND THEN
    IF p_dir <> '/memories' THEN
      RETURN;
    END IF;
    head := 0;
  END IF;
  FOR level IN 1 .. p_depth LOOP
    EXIT WHEN cardinality(lvl) = 0;
    nxt := '{}';
    -- Each directory's children by the children index (OFFSET 0 keeps the subquery a probe per
    -- directory): `x.parent = ANY (lvl)` read every row of the tenant on a table not yet analysed.
    FOR r IN SELECT c.path, c.kind, c.size FROM unnest(lvl) d(path)
             CROSS JOIN LATERAL (SELECT x.path, x.kind, x.size FROM {{ table }} x
                                  WHERE x.tenant = p_tenant AND x.parent = d.path
                                    AND NOT {{ fn("hidden") }}(substr(x.path, length(x.parent) + 2))
                                  OFFSET 0) c LOOP
      paths := paths || r.path;
      kinds := kinds || r.kind;
      sizes := sizes || r.size;
      depths := depths || level;
      IF r.kind = 'd' THEN
        nxt := nxt || r.path;
      END IF;
    END LOOP;
    lvl := nxt;
  END LOOP;
  total := cardinality(paths);
  r_path := p_dir;
  r_kind := 'd';
  r_size := head;
  r_depth := 0;
  r_omitted := 0;
  IF p_limit IS NULL OR total <= p_limit
     OR EXISTS (SELECT 1 FROM unnest(paths) p WHERE p ~ '[\uE000-\U0010FFFF]') THEN
    RETURN NEXT;
    RETURN QUERY SELECT u.p, u.k, u.s, u.d, 0::bigint FROM unnest(paths, kinds, sizes, depths) u(p, k, s, d);
  ELSE
    r_omitted := total - p_limit;
    RETURN NEXT;
    RETURN QUERY SELECT u.p, u.k, u.s, u.d, 0::bigint FROM unnest(paths, kinds, sizes, depths) u(p, k, s, d)
      ORDER BY string_to_array(u.p, '/') COLLATE "C" LIMIT p_limit;
  END IF;
END $fn$;

-- A view in one statement: the file's bytes and version (refreshing its access time under expiry), or
-- else the listing of the directory (r_kind 'f' marks the file's row).
CREATE OR REPLACE FUNCTION {{ fn("view") }}(p_tenant text, p_path text, p_depth int, p_limit int, p_now bigint,
                                        p_cutoff bigint)
RETURNS TABLE (r_path text, r_kind "char", r_size bigint, r_depth int, r_omitted bigint, r_content bytea,
               r_version bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  IF p_cutoff IS NULL THEN
    SELECT x.content, x.version INTO r_content, r_version FROM {{ table }} x
      WHERE x.tenant = p_tenant AND x.path = p_path AND x.kind::text = 'f';
  ELSE
    UPDATE {{ table }} x SET accessed_at = p_now
      WHERE x.tenant = p_tenant AND x.path = p_path AND x.kind::text = 'f' AND x.accessed_at >= p_cutoff
      RETURNING x.content, x.version INTO r_content, r_version;
  END IF;
  IF FOUND THEN
    r_path := p_path;
    r_kind := 'f';
    RETURN NEXT;
    RETURN;
  END IF;
  RETURN QUERY SELECT l.r_path, l.r_kind, l.r_size, l.r_depth, l.r_omitted, NULL::bytea, NULL::bigint
    FROM {{ fn("list") }}(p_tenant, p_path, p_depth, p_limit, p_cutoff) l;
END $fn$;

CREATE OR REPLACE FUNCTION {{ fn("stat") }}(p_tenant text, p_path text, p_cutoff bigint)
RETURNS TABLE (r_kind "char", r_size bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  PERFORM {{ fn("expire") }}(p_tenant, p_cutoff);
  RETURN QUERY SELECT x.kind, x.size FROM {{ table }} x
    WHERE x.tenant = p_tenant AND x.path = p_path AND x.kind IN ('f', 'd');
END $fn$;

CREATE OR REPLACE FUNCTION {{ fn("usage") }}(p_tenant text, p_cutoff bigint)
RETURNS TABLE (r_files bigint, r_bytes bigint)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  PERFORM {{ fn("expire") }}(p_tenant, p_cutoff);
  RETURN QUERY SELECT x.files, x.bytes FROM {{ table }} x WHERE x.tenant = p_tenant AND x.path = '/memories';
END $fn$;

-- Version 1 kept flat tenant ids, 'default' being the unscoped store: each becomes its chain of scopes.
-- New keys all start with '/', which no old one holds, so no two rows ever share a key on the way.
UPDATE {{ table }} x SET tenant = CASE WHEN x.tenant = 'default' THEN '/' ELSE '/' || x.tenant END
  WHERE x.tenant <> '' AND left(x.tenant, 1) <> '/'
    AND EXISTS (SELECT 1 FROM {{ table }} v WHERE v.tenant = '' AND v.path = '' AND v.kind = 'v' AND v.version = 1);

INSERT INTO {{ table }} (tenant, path, kind, version) VALUES ('', '', 'v', {{ schema_version }})
  ON CONFLICT (tenant, path) DO UPDATE SET version = EXCLUDED.version;
