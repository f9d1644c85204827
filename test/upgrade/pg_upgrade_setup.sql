-- Stored sets for test/pg-upgrade.sh, created in the old cluster: for each
-- element type T (int4, int8, text under a collation, uuid, numeric, date)
-- a source table src_T (g, v) kept alongside and a table sets_T (g, s) of
-- one set per group g, built with distinct_set_agg:
--   g 0: the empty set            g 3: 5000 scattered values
--   g 1: one value                g 4: a large set (toasted, MBs for int4,
--   g 2: 100 values, 150 rows          int8, text, uuid)
--                                 g 5: 100000 consecutive x (runs layout
--                                      for fixed-width keys)
-- Each value is an expression of an int4 x (hashint4 scatters it).  Then
-- all_sets (every set, with a hash index), small_sets (the small ones, with
-- a unique btree index), and a set of a domain (referenced by name).
CREATE COLLATION upg_coll (provider = libc, locale = 'C.UTF-8');
CREATE DOMAIN upg_pos AS int4 CHECK (VALUE > 0);

CREATE TABLE upg_types (ty text PRIMARY KEY, typ text, expr text, big int);
INSERT INTO upg_types VALUES
    ('int4', 'int4', 'x', 700000),
    ('int8', 'int8', 'x::int8 * 1000003', 400000),
    ('text', 'text COLLATE upg_coll', 'md5(x::text) || CASE WHEN x % 3 = 0 THEN ''-é'' ELSE '''' END', 100000),
    ('uuid', 'uuid', 'md5(x::text)::uuid', 100000),
    ('numeric', 'numeric', 'x::numeric / 1000', 200000),
    ('date', 'date', 'date ''2000-01-01'' + x % 1000000', 300000);

CREATE FUNCTION upg_make(p_ty text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    r upg_types;
BEGIN
    SELECT * INTO r FROM upg_types WHERE ty = p_ty;
    EXECUTE format('CREATE TABLE src_%s (g int NOT NULL, v %s NOT NULL)', r.ty, r.typ);
    EXECUTE format($q$
        INSERT INTO src_%1$s
        SELECT g, %2$s FROM (
            SELECT 1 AS g, 7 AS x
            UNION ALL SELECT 2, i %% 100 FROM generate_series(1, 150) i
            UNION ALL SELECT 3, hashint4(i) FROM generate_series(1, 5000) i
            UNION ALL SELECT 4, hashint4(i) FROM generate_series(1, %3$s) i
            UNION ALL SELECT 5, i FROM generate_series(1, 100000) i) s$q$,
        r.ty, r.expr, r.big);
    EXECUTE format('CREATE TABLE sets_%s (g int PRIMARY KEY, s distinct_set NOT NULL)', r.ty);
    EXECUTE format('INSERT INTO sets_%1$s SELECT 0, distinct_set(''{}''::%2$s[])',
                   r.ty, split_part(r.typ, ' ', 1));
    EXECUTE format('INSERT INTO sets_%1$s SELECT g, distinct_set_agg(v) FROM src_%1$s GROUP BY g', r.ty);
END $$;

SELECT upg_make(ty) FROM upg_types ORDER BY ty;

CREATE TABLE all_sets (ty text, g int, s distinct_set, PRIMARY KEY (ty, g));
INSERT INTO all_sets SELECT 'int4', g, s FROM sets_int4;
INSERT INTO all_sets SELECT 'int8', g, s FROM sets_int8;
INSERT INTO all_sets SELECT 'text', g, s FROM sets_text;
INSERT INTO all_sets SELECT 'uuid', g, s FROM sets_uuid;
INSERT INTO all_sets SELECT 'numeric', g, s FROM sets_numeric;
INSERT INTO all_sets SELECT 'date', g, s FROM sets_date;
INSERT INTO all_sets SELECT 'domain', 1, distinct_set(ARRAY[3, 1, 2, 3]::upg_pos[]);
CREATE INDEX all_sets_s_hash ON all_sets USING hash (s);

-- btree entries are limited to about 2.7 kB
CREATE TABLE small_sets AS SELECT * FROM all_sets WHERE pg_column_size(s) < 2000;
CREATE UNIQUE INDEX small_sets_s_btree ON small_sets (s);
ANALYZE;
